//! The house's import graph: which module file of a crate names which other, read from the
//! source with syn (`use` trees and paths in code, outside `#[cfg(test)]` items), and the
//! cycles in it. The end-to-end suite's `house` test holds the crates to no cycle at all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module by its path inside the crate: `[]` is the crate root, `["cli", "output"]` is
/// `cli/output.rs`.
pub type Module = Vec<String>;

/// Every module file under `src` and the modules each one names.
#[derive(Debug, Default)]
pub struct Graph {
    pub edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    /// Reads every `.rs` file under `src` (a crate's source folder).
    pub fn read(src: &Path) -> Graph {
        let mut files = Vec::new();
        collect(src, &mut files);
        let modules: BTreeMap<Module, PathBuf> =
            files.into_iter().map(|f| (module_of(src, &f), f)).collect();
        let parsed: BTreeMap<Module, syn::File> = modules
            .iter()
            .map(|(module, file)| {
                let text = std::fs::read_to_string(file).expect("a source file reads");
                let parsed = syn::parse_file(&text)
                    .unwrap_or_else(|e| panic!("{} does not parse: {e}", file.display()));
                (module.clone(), parsed)
            })
            .collect();
        // A file declared `#[cfg(test)] mod x;` is the unit tests' own, as an inline test
        // module is: neither it nor what is under it is part of the house.
        let tests: Vec<Module> = parsed
            .iter()
            .flat_map(|(module, file)| {
                file.items.iter().filter_map(move |item| match item {
                    syn::Item::Mod(m) if m.content.is_none() && is_test_only(&m.attrs) => {
                        let mut child = module.clone();
                        child.push(m.ident.to_string());
                        Some(child)
                    }
                    _ => None,
                })
            })
            .collect();
        let house = |m: &Module| !tests.iter().any(|t| m.starts_with(t));
        let known: BTreeSet<Module> = parsed.keys().filter(|m| house(m)).cloned().collect();
        let mut graph = Graph::default();
        for (module, file) in parsed.iter().filter(|(m, _)| house(m)) {
            graph
                .edges
                .insert(module.clone(), names(module, file, &known));
        }
        graph
    }

    /// Builds a graph from source texts by module, for the check's own tests.
    pub fn from_texts(texts: &[(&[&str], &str)]) -> Graph {
        let known: BTreeSet<Module> = texts.iter().map(|(m, _)| to_module(m)).collect();
        let mut graph = Graph::default();
        for (module, text) in texts {
            let parsed = syn::parse_file(text).expect("the text parses");
            let module = to_module(module);
            let named = names(&module, &parsed, &known);
            graph.edges.insert(module, named);
        }
        graph
    }

    /// The strongly connected components of more than one module (each a cycle of imports),
    /// each sorted, in a stable order.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let mut tarjan = Tarjan::new(self);
        for module in self.edges.keys() {
            if !tarjan.index.contains_key(module) {
                tarjan.visit(module);
            }
        }
        let mut out: Vec<Vec<String>> = tarjan
            .components
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut names: Vec<String> = c.iter().map(|m| display(m)).collect();
                names.sort();
                names
            })
            .collect();
        out.sort();
        out
    }

    /// The same graph at the folder level: every module stands for the top-level module it is
    /// in (`cli::output` for `cli`), an import inside one top-level module drops out, and the
    /// crate root (which declares them all) is left out.
    pub fn folders(&self) -> Graph {
        let top = |m: &Module| -> Option<Module> { m.first().map(|t| vec![t.clone()]) };
        let mut graph = Graph::default();
        for (module, named) in &self.edges {
            let Some(from) = top(module) else { continue };
            let into = graph.edges.entry(from.clone()).or_default();
            into.extend(named.iter().filter_map(top).filter(|to| *to != from));
        }
        graph
    }

    /// The modules under `parent` that name `parent` itself (a child importing back from the
    /// `mod.rs` that declares it).
    pub fn back_to_parent(&self, parent: &[&str]) -> Vec<String> {
        let parent = to_module(parent);
        self.edges
            .iter()
            .filter(|(m, _)| m.len() > parent.len() && m.starts_with(&parent))
            .filter(|(_, named)| named.contains(&parent))
            .map(|(m, _)| display(m))
            .collect()
    }
}

/// `cli::output`, or `lib` for the crate root.
pub fn display(module: &[String]) -> String {
    if module.is_empty() {
        String::from("lib")
    } else {
        module.join("::")
    }
}

fn to_module(parts: &[&str]) -> Module {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the source folder reads")
        .map(|e| e.expect("an entry reads").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/cli/output.rs` is `cli::output`; `mod.rs`, `lib.rs` and `main.rs` name their folder.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("the file is under src");
    let mut parts: Module = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The known modules a file names through `crate::`, `super::` or `self::` paths.
fn names(module: &Module, file: &syn::File, known: &BTreeSet<Module>) -> BTreeSet<Module> {
    let mut paths = Paths::default();
    for item in &file.items {
        if !is_test_only(item_attrs(item)) {
            paths.visit_item(item);
        }
    }
    let mut named = BTreeSet::new();
    for path in paths.found {
        if let Some(target) = resolve(module, &path, known)
            && &target != module
        {
            named.insert(target);
        }
    }
    named
}

/// The longest known module a path starts with, relative to `module`.
fn resolve(module: &Module, path: &[String], known: &BTreeSet<Module>) -> Option<Module> {
    let (mut base, rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (module.clone(), &path[1..]),
        Some("super") => {
            let mut base = module.clone();
            let mut rest = path;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
            (base, rest)
        }
        _ => return None,
    };
    let mut best = known.contains(&base).then(|| base.clone());
    for seg in rest {
        base.push(seg.clone());
        if known.contains(&base) {
            best = Some(base.clone());
        }
    }
    best
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Static(s) => &s.attrs,
        syn::Item::Trait(t) => &t.attrs,
        syn::Item::Type(t) => &t.attrs,
        syn::Item::Macro(m) => &m.attrs,
        _ => &[],
    }
}

/// `#[cfg(test)]`: code that only the crate's unit tests compile.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Every path in the file that starts with `crate`, `self` or `super`: the `use` trees
/// flattened, and the paths written in code.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(item_attrs(item)) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    /// `pub(crate)` and `pub(in crate::x)` say who may see an item; they import nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        flatten(&u.tree, &mut Vec::new(), &mut self.found);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if matches!(
            segs.first().map(String::as_str),
            Some("crate" | "self" | "super")
        ) {
            self.found.push(segs);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Paths inside a macro's tokens (`format!("{}", crate::x::y())`) count too.
        let mut path = Vec::new();
        self.scan(mac.tokens.clone(), &mut path);
        syn::visit::visit_macro(self, mac);
    }
}

impl Paths {
    /// Collects `crate`/`self`/`super` paths from raw tokens, descending into groups: a path is
    /// identifiers joined by `::`, so `pub(crate)` or `self.x` names nothing.
    fn scan(&mut self, tokens: proc_macro2::TokenStream, path: &mut Vec<String>) {
        let mut colons = 0;
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => {
                    if colons != 2 {
                        self.flush(path);
                    }
                    path.push(ident.to_string());
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
                proc_macro2::TokenTree::Group(g) => {
                    self.flush(path);
                    colons = 0;
                    self.scan(g.stream(), path);
                }
                _ => {
                    self.flush(path);
                    colons = 0;
                }
            }
        }
        self.flush(path);
    }

    fn flush(&mut self, path: &mut Vec<String>) {
        if path.len() > 1 && matches!(path[0].as_str(), "crate" | "self" | "super") {
            self.found.push(path.clone());
        }
        path.clear();
    }
}

fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            if n.ident != "self" {
                path.push(n.ident.to_string());
            }
            out.push(path);
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(path);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, out);
            }
        }
    }
}

/// Tarjan's strongly connected components over the graph's modules.
struct Tarjan<'g> {
    graph: &'g Graph,
    index: BTreeMap<Module, usize>,
    low: BTreeMap<Module, usize>,
    stack: Vec<Module>,
    on_stack: BTreeSet<Module>,
    components: Vec<Vec<Module>>,
}

impl<'g> Tarjan<'g> {
    fn new(graph: &'g Graph) -> Self {
        Tarjan {
            graph,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            components: Vec::new(),
        }
    }

    fn visit(&mut self, v: &Module) {
        let n = self.index.len();
        self.index.insert(v.clone(), n);
        self.low.insert(v.clone(), n);
        self.stack.push(v.clone());
        self.on_stack.insert(v.clone());
        let empty = BTreeSet::new();
        let next: Vec<Module> = self
            .graph
            .edges
            .get(v)
            .unwrap_or(&empty)
            .iter()
            .cloned()
            .collect();
        for w in next {
            if !self.index.contains_key(&w) {
                self.visit(&w);
                let low = self.low[v].min(self.low[&w]);
                self.low.insert(v.clone(), low);
            } else if self.on_stack.contains(&w) {
                let low = self.low[v].min(self.index[&w]);
                self.low.insert(v.clone(), low);
            }
        }
        if self.low[v] == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}
