//! The three forms a p4info (or any P4Runtime message) is written in, as the reference compiler's
//! `--p4runtime-files` writes them: protobuf text format ([`crate::text`]), binary wire format, and
//! protobuf's JSON mapping (camelCase names, 64-bit integers as strings).

use prost::Message;
use prost_reflect::{DynamicMessage, ReflectMessage};

/// A form of a message on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Binary,
    Json,
}

impl Format {
    /// The form a file name asks for by its extension, as the reference compiler reads it:
    /// `.txt`/`.txtpb`/`.pbtxt` text, `.bin`/`.pb` binary, `.json` JSON.
    pub fn of_path(path: &std::path::Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "txt" | "txtpb" | "pbtxt" => Some(Format::Text),
            "bin" | "pb" => Some(Format::Binary),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    /// `text`, `binary` or `json` (the names `--p4runtime-format` takes).
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "text" => Some(Format::Text),
            "binary" => Some(Format::Binary),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// `message` in `format`.
pub fn encode<M: Message + ReflectMessage>(message: &M, format: Format) -> Vec<u8> {
    match format {
        Format::Binary => message.encode_to_vec(),
        Format::Text => crate::text::print(&message.transcode_to_dynamic()).into_bytes(),
        Format::Json => {
            let dynamic: DynamicMessage = message.transcode_to_dynamic();
            let mut out = serde_json::to_vec_pretty(&dynamic).expect("a message always serializes to JSON");
            out.push(b'\n');
            out
        }
    }
}

/// Reads a message back from `bytes` in `format`; `Err` says what is wrong with them.
pub fn decode<M: Message + ReflectMessage + Default>(bytes: &[u8], format: Format) -> Result<M, String> {
    let descriptor = M::default().descriptor();
    let dynamic = match format {
        Format::Binary => return M::decode(bytes).map_err(|e| e.to_string()),
        Format::Text => {
            let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
            DynamicMessage::parse_text_format(descriptor, text).map_err(|e| e.to_string())?
        }
        Format::Json => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            let m = DynamicMessage::deserialize(descriptor, &mut de).map_err(|e| e.to_string())?;
            de.end().map_err(|e| e.to_string())?;
            m
        }
    };
    dynamic.transcode_to().map_err(|e| e.to_string())
}
