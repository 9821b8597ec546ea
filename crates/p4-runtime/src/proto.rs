//! P4Runtime's messages and services as generated from its .proto files (see `build.rs`), and the
//! descriptors that give every message its text and JSON forms.

use prost_reflect::DescriptorPool;
use std::sync::LazyLock;

/// The descriptors of every generated message (P4Runtime's, p4info's, google.rpc's and the
/// well-known types they use).
pub static DESCRIPTOR_POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    DescriptorPool::decode(include_bytes!(concat!(env!("OUT_DIR"), "/file_descriptor_set.bin")).as_ref())
        .expect("build.rs wrote a valid descriptor set")
});

pub mod p4 {
    pub mod v1 {
        include!(concat!(env!("OUT_DIR"), "/p4.v1.rs"));
    }
    pub mod config {
        pub mod v1 {
            include!(concat!(env!("OUT_DIR"), "/p4.config.v1.rs"));
        }
    }
}

pub mod google {
    pub mod rpc {
        include!(concat!(env!("OUT_DIR"), "/google.rpc.rs"));
    }
}
