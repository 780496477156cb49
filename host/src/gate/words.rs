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
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().enumerate().map(|(i, c)| (i + 1, c));
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '\'' | '"' => {
                let text = quoted(&mut chars, at, c)?;
                word.get_or_insert_with(String::new).push_str(&text);
            }
            c if c.is_control() => return Err(WordsError::Control { at, what: c }),
            c if plain(c) => word.get_or_insert_with(String::new).push(c),
            c => return Err(WordsError::Unquoted { at, what: c }),
        }
    }
    words.extend(word);
    Ok(words)
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
