//! The git objects verify-commit reads: REF's tree, every entry of a tree with its mode, the
//! SHA-256 of blobs streamed through one `cat-file --batch`, and what a commit changed from its
//! first parent. Paths travel NUL-delimited and stay bytes, so any name git accepts reads back.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use sha2::{Digest, Sha256};

/// One entry of a tree listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Six octal digits as git prints them: 100644, 100755, 120000, 160000, 040000.
    pub mode: String,
    pub kind: Kind,
    pub oid: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Blob,
    Tree,
    /// A gitlink: a submodule's commit.
    Submodule,
}

/// One path a commit changed, with its mode and blob afterwards (`None` when deleted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathChange {
    pub path: Vec<u8>,
    pub after: Option<(String, String)>,
}

/// git in `dir` with `input` on its stdin (the project's one git runner).
fn git(dir: &Path, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    crate::git::bytes(dir, args, None, Some(input))
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim_end().to_owned()
}

/// The tree REF names (a commit's tree, a tag's target, or a tree itself); `None` when REF
/// names neither.
pub fn tree_of(dir: &Path, reference: &str) -> Option<String> {
    let spec = format!("{reference}^{{tree}}");
    let args = [
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        &spec,
    ];
    git(dir, &args, b"").ok().map(text)
}

/// Whether `sha` names a commit in the object database.
pub fn has_commit(dir: &Path, sha: &str) -> bool {
    let spec = format!("{sha}^{{commit}}");
    git(dir, &["cat-file", "-e", &spec], b"").is_ok()
}

/// Every entry under `tree`, trees included, by path.
pub fn entries(dir: &Path, tree: &str) -> Result<BTreeMap<Vec<u8>, Entry>, String> {
    let raw = git(
        dir,
        &["ls-tree", "-r", "-t", "-z", "--full-tree", tree],
        b"",
    )?;
    parse_ls_tree(&raw)
}

/// `<mode> SP <type> SP <oid> TAB <path> NUL`, repeated.
fn parse_ls_tree(raw: &[u8]) -> Result<BTreeMap<Vec<u8>, Entry>, String> {
    let bad = || String::from("git ls-tree printed a line it should not");
    let mut out = BTreeMap::new();
    for record in raw.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let tab = record.iter().position(|&b| b == b'\t').ok_or_else(bad)?;
        let head = std::str::from_utf8(&record[..tab]).map_err(|_| bad())?;
        let mut parts = head.split(' ');
        let (Some(mode), Some(kind), Some(oid), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let kind = match kind {
            "blob" => Kind::Blob,
            "tree" => Kind::Tree,
            "commit" => Kind::Submodule,
            _ => return Err(bad()),
        };
        let entry = Entry {
            mode: mode.to_owned(),
            kind,
            oid: oid.to_owned(),
        };
        out.insert(record[tab + 1..].to_vec(), entry);
    }
    Ok(out)
}

/// The SHA-256 hex of each blob's content, in the order given, through one `cat-file --batch`
/// whose output is hashed as it streams, so no blob is held whole.
pub fn blob_sha256(dir: &Path, oids: &[&str]) -> Result<Vec<String>, String> {
    if oids.is_empty() {
        return Ok(Vec::new());
    }
    let input: String = oids.iter().map(|o| format!("{o}\n")).collect();
    let mut child = crate::git::reading(dir, &["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let read = std::thread::scope(|s| {
        s.spawn(move || stdin.write_all(input.as_bytes()));
        read_batch(BufReader::new(stdout), oids.len())
    });
    let status = child.wait().map_err(|e| format!("cannot run git: {e}"))?;
    let digests = read?;
    if !status.success() {
        return Err(String::from("git cat-file --batch failed"));
    }
    Ok(digests)
}

/// `<oid> blob <size> LF <content> LF` per object; anything else is an error.
fn read_batch(mut reader: impl BufRead, count: usize) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(count);
    let mut header = String::new();
    for _ in 0..count {
        header.clear();
        reader
            .read_line(&mut header)
            .map_err(|e| format!("cannot read git cat-file: {e}"))?;
        let size = match header.trim_end().split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size.parse::<u64>().ok(),
            _ => None,
        }
        .ok_or_else(|| format!("git cat-file answered {:?}", header.trim_end()))?;
        let mut hasher = Sha256::new();
        let copied = std::io::copy(&mut (&mut reader).take(size), &mut HashWriter(&mut hasher))
            .map_err(|e| format!("cannot read git cat-file: {e}"))?;
        let mut newline = [0u8; 1];
        reader
            .read_exact(&mut newline)
            .map_err(|e| format!("cannot read git cat-file: {e}"))?;
        if copied != size || newline != *b"\n" {
            return Err(String::from("git cat-file output was cut short"));
        }
        out.push(hex(&hasher.finalize()));
    }
    Ok(out)
}

struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What commit `sha` changed from its first parent (a root commit: from the empty tree),
/// renames split into a delete and an add.
pub fn changes(dir: &Path, sha: &str) -> Result<Vec<PathChange>, String> {
    let parents = text(git(dir, &["rev-list", "--parents", "-n", "1", sha], b"")?);
    let base = match parents.split(' ').nth(1) {
        Some(first) => first.to_owned(),
        // Hashing an empty input gives the empty tree in either object format.
        None => text(git(dir, &["hash-object", "-t", "tree", "--stdin"], b"")?),
    };
    let args = [
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--no-abbrev",
        &base,
        sha,
    ];
    parse_raw_diff(&git(dir, &args, b"")?)
}

/// `:<mode> <mode> <oid> <oid> <status> NUL <path> NUL`, repeated (no renames, so one path).
fn parse_raw_diff(raw: &[u8]) -> Result<Vec<PathChange>, String> {
    let bad = || String::from("git diff-tree printed a record it should not");
    let mut fields = raw.split(|&b| b == 0);
    let mut out = Vec::new();
    while let Some(head) = fields.next().filter(|h| !h.is_empty()) {
        let head = std::str::from_utf8(head).map_err(|_| bad())?;
        let parts: Vec<&str> = head.strip_prefix(':').ok_or_else(bad)?.split(' ').collect();
        let [_, dst_mode, _, dst_oid, status] = parts[..] else {
            return Err(bad());
        };
        let path = fields.next().filter(|p| !p.is_empty()).ok_or_else(bad)?;
        let after = match status {
            "D" => None,
            "A" | "M" | "T" => Some((dst_mode.to_owned(), dst_oid.to_owned())),
            _ => return Err(bad()),
        };
        out.push(PathChange {
            path: path.to_vec(),
            after,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn tree_listings_keep_paths_as_bytes() {
        let raw = format!(
            "100644 blob {A}\ta b\0040000 tree {B}\tdir\0160000 commit {A}\tsub\0100755 blob {B}\tdir/x\ty\0"
        );
        let map = parse_ls_tree(raw.as_bytes()).unwrap();
        assert_eq!(map.len(), 4);
        assert_eq!(map[b"a b".as_slice()].kind, Kind::Blob);
        assert_eq!(map[b"dir".as_slice()].kind, Kind::Tree);
        assert_eq!(map[b"sub".as_slice()].kind, Kind::Submodule);
        assert_eq!(map[b"dir/x\ty".as_slice()].mode, "100755");
        assert!(parse_ls_tree(b"100644 blob x\0").is_err());
        assert!(parse_ls_tree(format!("100644 thing {A}\tp\0").as_bytes()).is_err());
    }

    #[test]
    fn raw_diffs_give_the_mode_and_blob_after() {
        let raw = format!(
            ":000000 100644 {Z} {A} A\0new file\0:100644 000000 {A} {Z} D\0gone\0:100644 100755 {A} {A} M\0tool\0"
        );
        let changes = parse_raw_diff(raw.as_bytes()).unwrap();
        assert_eq!(
            changes,
            vec![
                PathChange {
                    path: b"new file".to_vec(),
                    after: Some(("100644".into(), A.into()))
                },
                PathChange {
                    path: b"gone".to_vec(),
                    after: None
                },
                PathChange {
                    path: b"tool".to_vec(),
                    after: Some(("100755".into(), A.into()))
                },
            ]
        );
        assert!(parse_raw_diff(format!(":100644 100644 {A} {B} R100\0a\0b\0").as_bytes()).is_err());
        assert!(parse_raw_diff(format!(":100644 100644 {A} {B} M\0").as_bytes()).is_err());
    }

    #[test]
    fn batches_hash_each_blob_and_refuse_anything_else() {
        let raw = format!("{A} blob 3\nabc\n{B} blob 0\n\n");
        let digests = read_batch(raw.as_bytes(), 2).unwrap();
        assert_eq!(
            digests,
            vec![
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ]
        );
        assert!(read_batch(format!("{A} missing\n").as_bytes(), 1).is_err());
        assert!(read_batch(format!("{A} tree 3\nabc\n").as_bytes(), 1).is_err());
        assert!(read_batch(format!("{A} blob 5\nabc").as_bytes(), 1).is_err());
    }
}
