//! Protobuf text format as the reference implementation (C++ `TextFormat::Print`) writes it, which
//! is what the P4 reference compiler's `.txt` p4info files and P4Runtime tools' dumps look like:
//! fields in number order, a repeated field as one block per element, messages as `name {` ... `}`,
//! two spaces of indent, strings and bytes C-escaped. (prost-reflect's own printer writes lists in
//! `[a, b]` form, which parsers accept but people diffing against reference files do not.)

use std::fmt::Write;

use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MapKey, Value};

/// `message` in text format, ending in a newline when it has any field.
pub fn print(message: &DynamicMessage) -> String {
    let mut out = String::new();
    print_message(message, 0, &mut out);
    out
}

fn print_message(message: &DynamicMessage, indent: usize, out: &mut String) {
    let mut fields: Vec<(FieldDescriptor, &Value)> = message.fields().collect();
    fields.sort_by_key(|(f, _)| f.number());
    for (field, value) in fields {
        match value {
            Value::List(items) => items.iter().for_each(|v| print_field(&field, v, indent, out)),
            Value::Map(entries) => {
                // Map entries print as messages with `key` and `value`, ordered by key.
                let mut entries: Vec<(&MapKey, &Value)> = entries.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let Kind::Message(entry) = field.kind() else { continue };
                for (k, v) in entries {
                    let mut m = DynamicMessage::new(entry.clone());
                    m.set_field_by_number(1, k.clone().into());
                    m.set_field_by_number(2, v.clone());
                    print_field(&field, &Value::Message(m), indent, out);
                }
            }
            v => print_field(&field, v, indent, out),
        }
    }
}

fn print_field(field: &FieldDescriptor, value: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match value {
        Value::Message(m) => {
            let _ = writeln!(out, "{pad}{} {{", field.name());
            print_message(m, indent + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        v => {
            let _ = writeln!(out, "{pad}{}: {}", field.name(), scalar(field, v));
        }
    }
}

fn scalar(field: &FieldDescriptor, value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::I32(v) => v.to_string(),
        Value::I64(v) => v.to_string(),
        Value::U32(v) => v.to_string(),
        Value::U64(v) => v.to_string(),
        Value::F32(v) => v.to_string(),
        Value::F64(v) => v.to_string(),
        Value::String(s) => quoted(s.as_bytes()),
        Value::Bytes(b) => quoted(b),
        Value::EnumNumber(n) => match field.kind() {
            Kind::Enum(e) => e.get_value(*n).map_or_else(|| n.to_string(), |v| v.name().to_string()),
            _ => n.to_string(),
        },
        Value::Message(_) | Value::List(_) | Value::Map(_) => unreachable!("print_field handles these"),
    }
}

/// C-escaped, in double quotes: the escapes C++ `CEscape` writes, octal for other non-printables.
fn quoted(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'"' => s.push_str("\\\""),
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::p4::config::v1 as p4info;
    use prost_reflect::ReflectMessage;

    #[test]
    fn repeated_fields_are_blocks_in_number_order_and_bytes_are_escaped() {
        let table = p4info::Table {
            preamble: Some(p4info::Preamble { id: 7, name: "I.t".into(), alias: "t".into(), ..Default::default() }),
            action_refs: vec![p4info::ActionRef { id: 1, ..Default::default() }, p4info::ActionRef { id: 2, ..Default::default() }],
            initial_default_action: Some(p4info::TableActionCall {
                action_id: 1,
                arguments: vec![p4info::table_action_call::Argument { param_id: 1, value: vec![0, b'"', 0x7f, b'a'] }],
            }),
            size: 1024,
            ..Default::default()
        };
        let expected = "preamble {\n  id: 7\n  name: \"I.t\"\n  alias: \"t\"\n}\naction_refs {\n  id: 1\n}\naction_refs {\n  id: 2\n}\n\
                        initial_default_action {\n  action_id: 1\n  arguments {\n    param_id: 1\n    value: \"\\000\\\"\\177a\"\n  }\n}\nsize: 1024\n";
        let text = print(&table.transcode_to_dynamic());
        assert_eq!(text, expected);
        // And the standard parser reads it back to the same message.
        let back = DynamicMessage::parse_text_format(table.descriptor(), &text).expect("parses");
        assert_eq!(back.transcode_to::<p4info::Table>().expect("same type"), table);
    }
}
