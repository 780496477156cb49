//! The words of `SSH_ORIGINAL_COMMAND`, split by a grammar much smaller than a shell's: plain
//! words, '...' and "..." quoting, and nothing else. Whatever a shell would expand, redirect,
//! chain or glob is refused rather than taken literally, so a command means the same here as
//! it would to a shell, or is not run at all (docs/remote.md states the grammar).

use thiserror::Error;

/// The longest command taken: far above any verb's arguments (a note, a piece), far below
/// what would cost anything to hold.
pub const MAX_BYTES: usize = 64 * 1024;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum WordsError {
    #[error(
        "the command is {0} bytes, more than the {MAX_BYTES} the gate reads; send a shorter one"
    )]
    TooLong(usize),
    #[error(
        "{} at character {at} is a control character, which no command carries; send one line of plain words",
        shown(*.what)
    )]
    Control { at: usize, what: char },
    #[error(
        "{} at character {at} is shell syntax, which the gate does not run; send plain words and put other text in '...'",
        shown(*.what)
    )]
    Unquoted { at: usize, what: char },
    #[error(
        "{} at character {at} inside \"...\" is expanded by a shell; put that text in '...' instead",
        shown(*.what)
    )]
    DoubleQuoted { at: usize, what: char },
    #[error("the {quote} quote at character {at} is never closed; close it")]
    Unterminated { at: usize, quote: char },
}

/// A character as a message shows it: in backquotes, or by its code when it would not print.
fn shown(c: char) -> String {
    if c == '`' {
        String::from("a backquote")
    } else if c.is_control() || c.is_whitespace() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("`{c}`")
    }
}

/// The characters a word may hold outside quotes: none of them means anything to a shell.
fn plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.,:=/+@%^".contains(c)
}

/// Splits `line` into words: runs of spaces or tabs separate them; a word is a run of plain
/// characters, '...' (taken as it is) and "..." (without `$`, backquote or backslash).
pub fn split(line: &str) -> Result<Vec<String>, WordsError> {
    if line.len() > MAX_BYTES {
        return Err(WordsError::TooLong(line.len()));
    }
    match scan(line) {
        (words, None) => Ok(words),
        (_, Some(e)) => Err(e),
    }
}

/// The words a shell would have taken from `line` before the point where `split` stops: all
/// of them when it stops nowhere, and a word cut off by shell syntax or a control character
/// outside quotes counts whole (`list --json; id` holds `list --json`), one whose quote is
/// open does not. Of a line over `MAX_BYTES`, its first `MAX_BYTES` are read. What a refusal
/// uses to tell whether `--json` was asked for (`asks_json`).
pub fn before_stop(line: &str) -> Vec<String> {
    let mut end = line.len().min(MAX_BYTES);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    scan(&line[..end]).0
}

/// Whether `words` ask for `--json`: the word itself, before any `--` (after it, `--json` is
/// a value, such as a note's text).
pub fn asks_json(words: &[String]) -> bool {
    words
        .iter()
        .take_while(|w| *w != "--")
        .any(|w| w == "--json")
}

/// The words of `line`, and why the split stopped early if it did, with the words before.
fn scan(line: &str) -> (Vec<String>, Option<WordsError>) {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().enumerate().map(|(i, c)| (i + 1, c));
    while let Some((at, c)) = chars.next() {
        let stop = match c {
            ' ' | '\t' => {
                words.extend(word.take());
                continue;
            }
            '\'' | '"' => match quoted(&mut chars, at, c) {
                Ok(text) => {
                    word.get_or_insert_with(String::new).push_str(&text);
                    continue;
                }
                // The word whose quote is open is no word yet.
                Err(e) => return (words, Some(e)),
            },
            c if c.is_control() => WordsError::Control { at, what: c },
            c if plain(c) => {
                word.get_or_insert_with(String::new).push(c);
                continue;
            }
            c => WordsError::Unquoted { at, what: c },
        };
        words.extend(word);
        return (words, Some(stop));
    }
    words.extend(word);
    (words, None)
}

/// The text of a quoted string whose opening `quote` was at `start`, up to its closing quote.
fn quoted(
    chars: &mut impl Iterator<Item = (usize, char)>,
    start: usize,
    quote: char,
) -> Result<String, WordsError> {
    let mut text = String::new();
    for (at, c) in chars {
        match c {
            c if c == quote => return Ok(text),
            c if c.is_control() => return Err(WordsError::Control { at, what: c }),
            '$' | '`' | '\\' if quote == '"' => {
                return Err(WordsError::DoubleQuoted { at, what: c });
            }
            c => text.push(c),
        }
    }
    Err(WordsError::Unterminated { at: start, quote })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Vec<String> {
        split(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    #[test]
    fn plain_and_quoted_words() {
        assert_eq!(ok(""), Vec::<String>::new());
        assert_eq!(ok(" \t "), Vec::<String>::new());
        assert_eq!(ok("list --json"), ["list", "--json"]);
        assert_eq!(ok("  show\t3  "), ["show", "3"]);
        assert_eq!(
            ok("note 3 'wait for #12; then go' --op a-3-note-1"),
            ["note", "3", "wait for #12; then go", "--op", "a-3-note-1"]
        );
        assert_eq!(ok("note 3 ''"), ["note", "3", ""]);
        assert_eq!(ok(r#"note 3 "it's done""#), ["note", "3", "it's done"]);
        assert_eq!(ok(r#"a'b c'"d e"f"#), ["ab cd ef"]);
        assert_eq!(ok(r"note 3 'a\b $x `y`'"), ["note", "3", r"a\b $x `y`"]);
        assert_eq!(
            ok("move 3 done --evidence comment=12,round=1,candidate=git:ab HEAD^ a@b %c +d"),
            [
                "move",
                "3",
                "done",
                "--evidence",
                "comment=12,round=1,candidate=git:ab",
                "HEAD^",
                "a@b",
                "%c",
                "+d"
            ]
        );
        assert_eq!(ok("note 3 'café ✓'"), ["note", "3", "café ✓"]);
    }

    #[test]
    fn shell_syntax_is_refused_where_it_stands() {
        for (line, at, what) in [
            ("mosaic-queue; id", 13, ';'),
            ("list | cat", 6, '|'),
            ("list && id", 6, '&'),
            ("list > /tmp/x", 6, '>'),
            ("list < /etc/passwd", 6, '<'),
            ("show $(id)", 6, '$'),
            ("show `id`", 6, '`'),
            ("show ${HOME}", 6, '$'),
            ("show *", 6, '*'),
            ("show ?", 6, '?'),
            ("show [1]", 6, '['),
            ("show {1,2}", 6, '{'),
            ("show ~", 6, '~'),
            ("show 3 # x", 8, '#'),
            ("show !3", 6, '!'),
            ("show (3)", 6, '('),
            (r"show \3", 6, '\\'),
            ("show café", 9, 'é'),
        ] {
            assert_eq!(
                split(line),
                Err(WordsError::Unquoted { at, what }),
                "{line:?}"
            );
        }
    }

    #[test]
    fn control_characters_are_refused_quoted_or_not() {
        for (line, at, what) in [
            ("list\nid", 5, '\n'),
            ("list\rid", 5, '\r'),
            ("note 3 'a\nb'", 10, '\n'),
            ("note 3 \"a\tb\"", 10, '\t'),
            ("list\u{7f}", 5, '\u{7f}'),
            ("list\u{0}", 5, '\u{0}'),
        ] {
            assert_eq!(
                split(line),
                Err(WordsError::Control { at, what }),
                "{line:?}"
            );
        }
    }

    #[test]
    fn double_quotes_refuse_what_a_shell_expands_in_them() {
        for (line, at, what) in [
            (r#"note 3 "$HOME""#, 9, '$'),
            (r#"note 3 "`id`""#, 9, '`'),
            (r#"note 3 "a\"b""#, 10, '\\'),
        ] {
            assert_eq!(
                split(line),
                Err(WordsError::DoubleQuoted { at, what }),
                "{line:?}"
            );
        }
    }

    #[test]
    fn unterminated_quotes_and_long_commands_are_refused() {
        assert_eq!(
            split("note 3 'open"),
            Err(WordsError::Unterminated { at: 8, quote: '\'' })
        );
        assert_eq!(
            split("note 3 \"open"),
            Err(WordsError::Unterminated { at: 8, quote: '"' })
        );
        let long = "a".repeat(MAX_BYTES + 1);
        assert_eq!(split(&long), Err(WordsError::TooLong(MAX_BYTES + 1)));
        assert_eq!(split(&"a".repeat(MAX_BYTES)).unwrap().len(), 1);
    }

    /// The words `sh` makes of `line`: the second implementation the split is held to.
    fn sh_words(line: &str) -> Vec<String> {
        let script = format!("set -- {line}\nfor w in \"$@\"; do printf '%s\\0' \"$w\"; done");
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "sh: {line:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let mut words: Vec<String> = text.split('\0').map(str::to_owned).collect();
        assert_eq!(words.pop().as_deref(), Some(""), "{line:?}");
        words
    }

    #[test]
    fn every_line_it_takes_splits_as_sh_splits_it() {
        for line in [
            "gate --seat darkwing --root '/srv/mosaic/my stack'",
            "gate --seat darkwing --root \"/srv/mosaic/my stack\"",
            "gate --root /srv/mosaic/my' 'stack --seat darkwing",
            "note 3 'waiting on #12; back tomorrow' --op darkwing-3-note-4",
            "a'b c'\"d\" '' x",
            "note 3 \"a 'quoted' word\" 'say \"hi\"'",
            "move 3 done --evidence comment=12,round=1,candidate=git:ab HEAD^ a@b %c +d",
            "\tlist\t --json ",
            "note 3 'café ✓ $HOME `id` \\'",
        ] {
            assert_eq!(ok(line), sh_words(line), "{line:?}");
        }
    }

    #[test]
    fn the_words_before_a_stop_are_what_a_shell_would_have_run() {
        let before = |line: &str| before_stop(line);
        assert_eq!(before("list --json; id"), ["list", "--json"]);
        assert_eq!(before("list --json\nid"), ["list", "--json"]);
        assert_eq!(
            before("--json cat /etc/passwd"),
            ["--json", "cat", "/etc/passwd"]
        );
        assert_eq!(before("list; id --json"), ["list"]);
        assert_eq!(before("note 3 'open --json"), ["note", "3"]);
        assert_eq!(before("note 3 \"$x\" --json"), ["note", "3"]);
        assert_eq!(before("--json a'b'$(id)"), ["--json", "ab"]);
        // A line over the cap: its first MAX_BYTES, cut back to a character's boundary (here
        // inside a quote left open, so its word does not count).
        let long = format!("--json  '{}'", "é".repeat(MAX_BYTES));
        assert_eq!(before(&long), ["--json"]);
        assert!(asks_json(&before("list --json; id")));
        assert!(!asks_json(&before("list; id --json")));
        assert!(!asks_json(&before("note 3 -- --json")));
        assert!(asks_json(&before("--json note 3 -- x")));
    }

    #[test]
    fn messages_name_the_character_and_the_next_step() {
        assert_eq!(
            split("mosaic-queue; id").unwrap_err().to_string(),
            "`;` at character 13 is shell syntax, which the gate does not run; send plain words and put other text in '...'"
        );
        assert_eq!(
            split("list\nid").unwrap_err().to_string(),
            "U+000A at character 5 is a control character, which no command carries; send one line of plain words"
        );
    }
}
