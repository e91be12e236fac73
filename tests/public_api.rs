//! The documented API is a reviewed snapshot: every public item a user of the crate can name,
//! read from the sources with syn, one line each, in `tests/snapshots/public_api__api.snap`. A
//! change to the API (an item added, removed, renamed, a signature changed) fails this test
//! until the snapshot is accepted (`cargo insta review`), so it is a diff in review, never an
//! accident. Also: the public modules at the root are the ones `ROOT_MODULES` lists, and no
//! hidden module but the one `main!` expands to.

use quote::ToTokens;
use std::path::{Path, PathBuf};
use syn::{Attribute, ImplItem, Item, TraitItem, Visibility};

/// The root's public modules: the documented API.
const ROOT_MODULES: [&str; 10] = [
    "adapter", "case", "classify", "engine", "hop", "input", "model", "report", "stdio", "wire",
];

/// The one hidden module, for what `main!`'s expansion names in the caller's crate.
const MACRO_SUPPORT: &str = "__private";

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn has(attrs: &[Attribute], path: &str, inner: &str) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident(path) && a.meta.to_token_stream().to_string().contains(inner))
}

fn hidden(attrs: &[Attribute]) -> bool {
    has(attrs, "doc", "hidden") || has(attrs, "cfg", "test")
}

fn public(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// Tokens as one line (syn spells them with spaces: `& str`, `Vec < u8 >`).
fn text(tokens: &impl ToTokens) -> String {
    tokens.to_token_stream().to_string()
}

/// The file of module `path` (`["report", "json"]` is `src/report/json.rs`).
fn file_of(path: &[String]) -> PathBuf {
    let mut file = src();
    match path.split_last() {
        None => file.push("lib.rs"),
        Some((last, parents)) => {
            parents.iter().for_each(|p| file.push(p));
            file.push(format!("{last}.rs"));
        }
    }
    file
}

/// Every public item of module `path` and its public submodules, one line each.
fn api_of(path: &[String], items: &[Item], lines: &mut Vec<String>) {
    let at = if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    };
    for item in items {
        match item {
            Item::Mod(m) if public(&m.vis) && !hidden(&m.attrs) => {
                let mut inner = path.to_vec();
                inner.push(m.ident.to_string());
                let code = match &m.content {
                    Some((_, items)) => items.clone(),
                    None => parse(&file_of(&inner)).items,
                };
                lines.push(format!("{at}: mod {}", m.ident));
                api_of(&inner, &code, lines);
            }
            Item::Macro(m) if has(&m.attrs, "macro_export", "") => {
                let name = m.ident.as_ref().map(text).unwrap_or_default();
                lines.push(format!("crate: macro {name}!"));
            }
            Item::Impl(i) if !hidden(&i.attrs) => impl_api(&at, i, lines),
            Item::Use(u) if public(&u.vis) && !hidden(&u.attrs) => {
                lines.push(format!("{at}: use {}", tight(&text(&u.tree))));
                let mut leaves = Vec::new();
                use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                for (module, name, alias) in leaves {
                    reexported(&at, &module, &name, &alias, lines);
                }
            }
            item => {
                if let Some(line) = item_line(item) {
                    lines.push(format!("{at}: {line}"));
                }
            }
        }
    }
}

/// `a :: b :: { C , D as E }` as `a::b::{C, D as E}`.
fn tight(tokens: &str) -> String {
    tokens
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("{ ", "{")
        .replace(" }", "}")
        .replace(" ,", ",")
}

/// The `(module path, name, alias)` of every name a `use` tree brings in from `crate::`.
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String, String)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            out.push((prefix.clone(), n.ident.to_string(), n.ident.to_string()))
        }
        syn::UseTree::Rename(r) => {
            out.push((prefix.clone(), r.ident.to_string(), r.rename.to_string()))
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_leaves(t, prefix, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// What a re-export from a private module brings into the API: the item's line and its
/// inherent functions in that file, under the name it is exported as. Items of public
/// modules are listed where they live.
fn reexported(at: &str, module: &[String], name: &str, alias: &str, lines: &mut Vec<String>) {
    let Some(("crate", path)) = module.split_first().map(|(f, r)| (f.as_str(), r)) else {
        return;
    };
    let file = file_of(path);
    if path
        .first()
        .is_some_and(|m| ROOT_MODULES.contains(&m.as_str()))
        || !file.exists()
    {
        return;
    }
    let items = parse(&file).items;
    for item in &items {
        let named = match item {
            Item::Struct(s) => s.ident == name,
            Item::Enum(e) => e.ident == name,
            Item::Trait(t) => t.ident == name,
            Item::Fn(f) => f.sig.ident == name,
            Item::Const(c) => c.ident == name,
            Item::Impl(i) => i.trait_.is_none() && text(&i.self_ty).split(' ').next() == Some(name),
            _ => false,
        };
        if !named {
            continue;
        }
        if let Item::Impl(i) = item {
            impl_api(&format!("{at} ({alias})"), i, lines);
        } else if let Some(line) = item_line(item) {
            lines.push(format!("{at}: {alias} = {line}"));
        }
    }
}

/// The line of a public, shown item that is not a module or an impl.
fn item_line(item: &Item) -> Option<String> {
    let (vis, attrs, line) = match item {
        Item::Use(u) => (&u.vis, &u.attrs, tight(&text(&u.tree))),
        Item::Fn(f) => (&f.vis, &f.attrs, text(&f.sig)),
        Item::Const(c) => (
            &c.vis,
            &c.attrs,
            format!("const {}: {}", c.ident, text(&c.ty)),
        ),
        Item::Static(s) => (
            &s.vis,
            &s.attrs,
            format!("static {}: {}", s.ident, text(&s.ty)),
        ),
        Item::Type(t) => (
            &t.vis,
            &t.attrs,
            format!("type {} = {}", t.ident, text(&t.ty)),
        ),
        Item::Struct(s) => (&s.vis, &s.attrs, struct_line(s)),
        Item::Enum(e) => (&e.vis, &e.attrs, enum_line(e)),
        Item::Trait(t) => (&t.vis, &t.attrs, trait_line(t)),
        _ => return None,
    };
    let line = match item {
        Item::Use(_) => format!("use {line}"),
        _ => line,
    };
    (public(vis) && !hidden(attrs)).then_some(line)
}

fn struct_line(s: &syn::ItemStruct) -> String {
    let mut fields: Vec<String> = s
        .fields
        .iter()
        .filter(|f| public(&f.vis) && !hidden(&f.attrs))
        .map(|f| match &f.ident {
            Some(name) => format!("{name}: {}", text(&f.ty)),
            None => text(&f.ty),
        })
        .collect();
    if s.fields.iter().any(|f| !public(&f.vis)) {
        fields.push("..".into());
    }
    format!(
        "struct {}{} {{ {} }}",
        s.ident,
        text(&s.generics),
        fields.join(", ")
    )
}

fn enum_line(e: &syn::ItemEnum) -> String {
    let variants: Vec<String> = e
        .variants
        .iter()
        .filter(|v| !hidden(&v.attrs))
        .map(|v| format!("{}{}", v.ident, text(&v.fields)))
        .collect();
    let exhaustive = if has(&e.attrs, "non_exhaustive", "") {
        "#[non_exhaustive] "
    } else {
        ""
    };
    format!("{exhaustive}enum {} {{ {} }}", e.ident, variants.join(", "))
}

fn trait_line(t: &syn::ItemTrait) -> String {
    let items: Vec<String> = t
        .items
        .iter()
        .filter_map(|item| match item {
            TraitItem::Fn(f) if !hidden(&f.attrs) => Some(text(&f.sig)),
            TraitItem::Type(ty) => Some(format!("type {}", ty.ident)),
            TraitItem::Const(c) => Some(format!("const {}", c.ident)),
            _ => None,
        })
        .collect();
    format!(
        "trait {}{}: {} {{ {} }}",
        t.ident,
        text(&t.generics),
        text(&t.supertraits),
        items.join("; ")
    )
}

/// A trait impl as one line; an inherent impl's public functions one line each.
fn impl_api(at: &str, i: &syn::ItemImpl, lines: &mut Vec<String>) {
    let ty = text(&i.self_ty);
    if let Some((_, trait_path, _)) = &i.trait_ {
        lines.push(format!(
            "{at}: impl{} {} for {ty}",
            text(&i.generics),
            text(trait_path)
        ));
        return;
    }
    for item in &i.items {
        if let ImplItem::Fn(f) = item {
            if public(&f.vis) && !hidden(&f.attrs) {
                lines.push(format!("{at}: {ty}::{}", text(&f.sig)));
            }
        }
        if let ImplItem::Const(c) = item {
            if public(&c.vis) && !hidden(&c.attrs) {
                lines.push(format!("{at}: {ty}::const {}: {}", c.ident, text(&c.ty)));
            }
        }
    }
}

fn parse(file: &Path) -> syn::File {
    let code = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", file.display()));
    syn::parse_file(&code).unwrap_or_else(|e| panic!("{}: cannot parse: {e}", file.display()))
}

/// The whole documented API, one sorted line per item.
fn api() -> String {
    let mut lines = Vec::new();
    api_of(&[], &parse(&file_of(&[])).items, &mut lines);
    lines.sort();
    lines.dedup();
    lines.join("\n") + "\n"
}

#[test]
fn the_documented_api_is_the_reviewed_snapshot() {
    insta::assert_snapshot!("api", api());
}

#[test]
fn the_root_has_ten_public_modules_and_hides_only_the_macros_support() {
    let lib = parse(&file_of(&[]));
    let mut shown = Vec::new();
    let mut hidden_modules = Vec::new();
    for item in &lib.items {
        if let Item::Mod(m) = item {
            match (public(&m.vis), hidden(&m.attrs)) {
                (true, false) => shown.push(m.ident.to_string()),
                (true, true) => hidden_modules.push(m.ident.to_string()),
                _ => {}
            }
        }
    }
    assert_eq!(
        shown, ROOT_MODULES,
        "src/lib.rs: a new public module is a new promise: make it `mod` (private) and \
         re-export what users need, or list it here and in src/lib.rs's \"The public API\""
    );
    assert_eq!(
        hidden_modules,
        [MACRO_SUPPORT],
        "src/lib.rs: the only hidden module is what `main!` expands to; the command line, tests \
         and benches use the documented API"
    );
}

#[test]
fn a_hidden_or_private_item_is_not_listed() {
    let code = "pub fn shown(a: u8) {}\n#[doc(hidden)] pub fn hidden() {}\nfn private() {}\n\
                pub(crate) fn crate_only() {}\npub struct S { pub a: u8, b: u8 }\n";
    let mut lines = Vec::new();
    api_of(&[], &syn::parse_file(code).unwrap().items, &mut lines);
    assert_eq!(
        lines,
        ["crate: fn shown (a : u8)", "crate: struct S { a: u8, .. }"]
    );
}
