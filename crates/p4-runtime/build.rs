//! Compiles P4Runtime's .proto files (messages with prost, services with tonic, descriptors for
//! text and JSON formats with prost-reflect). The files are not part of the repository: `make
//! tools-proto` (`fetch-protos.sh`) takes them from a pinned PyPI wheel into `.venv/proto`, or
//! `P4FORGE_PROTO_DIR` names another directory holding them. protoc comes from protoc-bin-vendored, so
//! no system protoc is needed.

use std::path::PathBuf;

const PROTOS: [&str; 3] = ["p4/v1/p4runtime.proto", "p4/config/v1/p4info.proto", "google/rpc/code.proto"];

fn main() {
    println!("cargo:rerun-if-env-changed=P4FORGE_PROTO_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("P4FORGE_PROTO_DIR").map(PathBuf::from).unwrap_or_else(|| manifest.join("../../.venv/proto"));
    let missing: Vec<&str> = PROTOS.iter().copied().filter(|p| !dir.join(p).is_file()).collect();
    if !missing.is_empty() {
        eprintln!(
            "error: P4Runtime's .proto files are not in {} (missing {}).\n\
             Fetch them with:  make tools-proto   (or: crates/p4-runtime/fetch-protos.sh DIR, then set P4FORGE_PROTO_DIR=DIR)",
            dir.display(),
            missing.join(", ")
        );
        std::process::exit(1);
    }
    for p in PROTOS {
        println!("cargo:rerun-if-changed={}", dir.join(p).display());
    }
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("protoc-bin-vendored has a protoc for this platform");
    let well_known = protoc_bin_vendored::include_path().expect("protoc-bin-vendored has the well-known types");
    let includes: Vec<String> = [dir.clone(), well_known].iter().map(|d| d.display().to_string()).collect();
    let mut config = prost_build::Config::new();
    config.protoc_executable(&protoc);
    // prost-reflect-build runs protoc itself; it takes the executable from PROTOC.
    // SAFETY of set_var: a build script is single-threaded at this point.
    std::env::set_var("PROTOC", &protoc);
    prost_reflect_build::Builder::new()
        .descriptor_pool("crate::proto::DESCRIPTOR_POOL")
        .configure(&mut config, &PROTOS, &includes)
        .expect("descriptor set of the P4Runtime protos");
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_with_config(config, &PROTOS, &includes.iter().map(String::as_str).collect::<Vec<_>>())
        .expect("P4Runtime protos compile");
}
