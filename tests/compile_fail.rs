//! Misuses of `main!` fail to compile with a message that says what to write instead. Each
//! case in tests/ui/ has the compiler's output beside it (`.stderr`); after a deliberate
//! change to a message, `TRYBUILD=overwrite cargo test --test compile_fail` rewrites them.

#[test]
fn misuses_of_main_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
