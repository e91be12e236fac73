//! The built-in cases are embedded with `include_dir!`, which tells cargo about the files it
//! found, not about the folder: a case file added later would not rebuild the crate, and the
//! new case would silently be missing. Watching the folder makes cargo rebuild when any file
//! under it is added, removed or changed.

fn main() {
    println!("cargo:rerun-if-changed=cases");
}
