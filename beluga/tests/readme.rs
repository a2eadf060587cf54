//! The README's embedding example is the crate's doc-tested example, word for word (so the
//! README never shows code that does not compile or pass).

fn doc_example(lib: &str) -> String {
    let doc: Vec<&str> = lib
        .lines()
        .filter(|l| l.starts_with("//!"))
        .map(|l| l.strip_prefix("//! ").or_else(|| l.strip_prefix("//!")).unwrap_or(""))
        .collect();
    let text = doc.join("\n");
    let start = text.find("```\n").expect("doc example") + 4;
    let end = start + text[start..].find("```").expect("end of doc example");
    text[start..end].to_string()
}

#[test]
fn readme_embedding_example_matches_the_doc_test() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
    let ex = doc_example(&lib);
    let sec = &readme[readme.find("## Embedding").expect("README has an Embedding section")..];
    let start = sec.find("```rust\n").expect("rust block") + 8;
    let end = start + sec[start..].find("```").expect("end of block");
    assert_eq!(&sec[start..end], ex, "README's embedding example differs from beluga/src/lib.rs's doc example");
}
