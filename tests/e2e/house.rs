//! The house reads bottom-up: no module file of the core, the host or the wasm crate imports,
//! directly or through others, a module that imports it back; the host's top-level modules form
//! no cycle between them either; no file of a face's folder or the engine's imports from the
//! `mod.rs` that declares it; and no face imports another. The graph comes from the source
//! itself (support::house).

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
    let cycles = src("host").folders().cycles();
    assert!(
        cycles.is_empty(),
        "host/src's top-level modules have {} import cycles: {cycles:?}",
        cycles.len()
    );
}

#[test]
fn no_file_of_a_face_or_the_engine_imports_back_from_its_folders_mod_rs() {
    let host = src("host");
    for folder in ["cli", "command", "engine", "gate", "mcp", "board", "follow"] {
        let back = host.back_to_parent(&[folder]);
        assert!(
            back.is_empty(),
            "these import from {folder}/mod.rs: {back:?}"
        );
    }
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

/// The host's faces: each only translates its input into the engine's request.
const FACES: &[&str] = &["board", "cli", "follow", "gate", "mcp"];

/// What a face, and the command line's grammar two of them speak, may import: the engine, the
/// command line's grammar, the reply it prints, the exit codes, the value parsers every face
/// shares, and the test seams (`io::seams`).
const FACE_MAY_IMPORT: &[&str] = &["command", "engine", "exit", "io", "reply", "values"];

/// No face imports another, nothing below the faces imports a face (`main.rs` alone picks
/// one), and a face reaches the rest of the host only through the engine.
#[test]
fn faces_import_the_engine_and_never_each_other() {
    let folders = src("host").folders();
    let mut wrong = Vec::new();
    for (from, named) in &folders.edges {
        let from = from.join("::");
        let face = FACES.contains(&from.as_str()) || from == "command";
        for to in named.iter().map(|m| m.join("::")) {
            if FACES.contains(&to.as_str()) || (face && !FACE_MAY_IMPORT.contains(&to.as_str())) {
                wrong.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports a face may not make, or of a face: {wrong:?}"
    );
    for face in FACES {
        let named = &folders.edges[&vec![(*face).to_owned()]];
        assert!(
            named.contains(&vec![String::from("engine")]),
            "{face} does not go through the engine: {named:?}"
        );
    }
}

/// The README lists the host's top-level modules bottom-up; every one of them is listed once,
/// and each imports only modules listed before it.
#[test]
fn the_host_reads_in_the_order_the_readme_gives() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let order = readme_order(&readme);
    let folders = src("host").folders();
    let mut listed = order.clone();
    listed.sort();
    let mut modules: Vec<String> = folders.edges.keys().map(|m| m.join("::")).collect();
    modules.sort();
    assert_eq!(listed, modules, "the README's list of the host's modules");
    let at = |m: &str| order.iter().position(|o| o == m).unwrap();
    let mut upward = Vec::new();
    for (from, named) in &folders.edges {
        let from = from.join("::");
        for to in named.iter().map(|m| m.join("::")) {
            if at(&to) >= at(&from) {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports of a module the README lists later: {upward:?}"
    );
}

/// The names in backquotes of the README's sentence that begins "The host's top-level
/// modules, bottom-up", up to its full stop.
fn readme_order(readme: &str) -> Vec<String> {
    let start = readme
        .find("The host's top-level modules, bottom-up")
        .expect("the README lists the host's modules bottom-up");
    let sentence = &readme[start..];
    let sentence = &sentence[..sentence
        .find(".\n")
        .or_else(|| sentence.find(". "))
        .unwrap()];
    let colon = sentence.find(':').unwrap();
    sentence[colon..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readme_order_is_read_from_its_sentence() {
    let text = "x\nThe host's top-level modules, bottom-up (each imports only those before it): `a`,\n`b` and `c`.\nThen `d`.";
    assert_eq!(readme_order(text), ["a", "b", "c"]);
}
