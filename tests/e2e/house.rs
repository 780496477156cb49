//! The house reads bottom-up: no module file of the core, the host or the wasm crate imports,
//! directly or through others, a module that imports it back, and no file in the CLI's folder
//! imports from the `cli/mod.rs` that declares it (the dispatcher imports the verbs, never the
//! other way), and the host's top-level modules form no cycle between them either. The graph
//! comes from the source itself (support::house).

use std::path::Path;

use support::house::Graph;

fn src(krate: &str) -> Graph {
    Graph::read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(krate)
            .join("src"),
    )
}

#[test]
fn no_crate_has_an_import_cycle() {
    for krate in ["core", "host", "wasm"] {
        let cycles = src(krate).cycles();
        assert!(
            cycles.is_empty(),
            "{krate}/src has {} import cycles: {cycles:?}",
            cycles.len()
        );
    }
}

/// The host's top-level modules (the folders and files directly under host/src) read
/// bottom-up too: none imports, directly or through others, one that imports it back.
#[test]
fn no_top_level_module_of_the_host_imports_one_that_imports_it_back() {
    // The faces are being reworked: until then they may form this one cycle among themselves.
    let allowed: Vec<Vec<String>> = vec![vec!["cli".into(), "gate".into(), "mcp".into()]];
    let cycles: Vec<Vec<String>> = src("host")
        .folders()
        .cycles()
        .into_iter()
        .filter(|cycle| !allowed.contains(cycle))
        .collect();
    assert!(
        cycles.is_empty(),
        "host/src's top-level modules have {} import cycles: {cycles:?}",
        cycles.len()
    );
}

#[test]
fn no_file_in_cli_imports_back_from_its_dispatcher() {
    let back = src("host").back_to_parent(&["cli"]);
    assert!(back.is_empty(), "these import from cli/mod.rs: {back:?}");
}

/// The check finds what it exists to find: a cycle through `use`, `super::` and a path in
/// code or in a macro, and a child that imports from its parent; it ignores test-only code
/// and visibility (`pub(crate)` names the crate root without importing from it).
#[test]
fn the_check_sees_cycles_of_every_spelling() {
    let graph = Graph::from_texts(&[
        (&[], "mod a; mod b; mod c;"),
        (&["a"], "use crate::b::X;"),
        (&["b"], "fn f() { let _ = format!(\"{}\", crate::c::y()); }"),
        (&["c"], "fn g() -> super::a::T { todo!() }"),
    ]);
    assert_eq!(graph.cycles(), vec![vec!["a", "b", "c"]]);
    let acyclic = Graph::from_texts(&[
        (&[], "mod a; mod b; pub use crate::b::z;"),
        (&["a"], "use crate::b::X;"),
        (
            &["b"],
            "#[cfg(test)] mod tests { use crate::a::Y; }\npub(crate) fn z() {}",
        ),
    ]);
    assert!(acyclic.cycles().is_empty());
    let back = Graph::from_texts(&[
        (&["cli"], "mod out; pub struct Failure;"),
        (&["cli", "out"], "use super::Failure;"),
    ]);
    assert_eq!(back.back_to_parent(&["cli"]), vec!["cli::out"]);
}
