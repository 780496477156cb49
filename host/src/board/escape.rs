//! The one place text from the queue becomes markup: HTML text and attributes, SVG (the same
//! rules, which are XML's), URL components, and the event stream's data lines. Every page and
//! payload of the board goes through these functions; nothing else writes queue text out.

use std::fmt::Write;

/// `text` for HTML text, a double-quoted attribute value, or SVG text and attributes: the five
/// characters markup gives meaning to become character references, and every character that
/// would be invisible or reorder what a reader sees (controls, Unicode's format characters:
/// bidi overrides and isolates, zero-width characters, the soft hyphen, tags; line and
/// paragraph separators) is shown as its code point, `[U+202E]`, so a row's text always reads
/// as what it holds and two texts that differ never look the same. Newlines and tabs stay as
/// they are (white space).
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if hidden(c) => {
                let _ = write!(out, "[U+{:04X}]", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// One line of `text`: as `text`, with newlines and tabs shown as spaces (a card's piece, a
/// table cell).
pub fn line(line: &str) -> String {
    text(&line.replace(['\n', '\r', '\t'], " "))
}

/// Characters that a reader would not see as themselves: C0 and C1 controls (newline and tab
/// aside, which `text` keeps), every format character (category Cf), and the line and
/// paragraph separators.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || format(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Unicode's format characters (general category Cf, Unicode 16.0): zero-width spaces and
/// joiners, bidi marks, embeddings, overrides and isolates, invisible operators, the soft
/// hyphen, prepended concatenation marks, byte order mark, interlinear annotation, shorthand
/// and musical format controls, and the tag characters.
fn format(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// `text` as one URL path segment or query value: every byte but the unreserved ones
/// percent-encoded, so `/`, `?`, `#`, `&` and quotes never end the part it is in.
pub fn url_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// One server-sent event: its name (a fixed word of this program's) and its data, each line
/// of the data on a `data:` line of its own, so no text can end the event early or forge a
/// field. A carriage return counts as a line end, as the event stream's parser reads it.
pub fn event(name: &str, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 32);
    out.push_str("event: ");
    out.push_str(&name.replace(['\r', '\n'], ""));
    out.push('\n');
    for part in data.split('\n').flat_map(|l| l.split('\r')) {
        out.push_str("data: ");
        out.push_str(part);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// A query string's value decoded: `+` as a space and `%XX` escapes; `None` for a broken
/// escape or bytes that are not UTF-8 (the caller refuses the request).
pub fn decode_query_value(raw: &str) -> Option<String> {
    decode(raw, true)
}

/// A path segment decoded: `%XX` escapes (a `+` is itself); `None` as for a query value.
pub fn decode_path_segment(raw: &str) -> Option<String> {
    decode(raw, false)
}

fn decode(raw: &str, plus_is_space: bool) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every hostile piece the board may meet, from old files (`<`, which new input refuses)
    /// and from new input alike.
    const HOSTILE: &str =
        "a & b \"q\" 'r' > <script>x</script> ]]> </svg> \u{202E}evil\u{2066} line\nnext\u{7}";

    #[test]
    fn markup_characters_become_references_and_hidden_ones_show_their_code_point() {
        assert_eq!(
            text(HOSTILE),
            "a &amp; b &quot;q&quot; &#39;r&#39; &gt; &lt;script&gt;x&lt;/script&gt; ]]&gt; \
             &lt;/svg&gt; [U+202E]evil[U+2066] line\nnext[U+0007]"
        );
        assert_eq!(line("one\ntwo\tthree\r"), "one two three ");
        assert_eq!(text("\u{2028}\u{FEFF}\u{85}"), "[U+2028][U+FEFF][U+0085]");
        assert_eq!(text("plain ünïcode"), "plain ünïcode");
    }

    /// Every code point against Unicode's own categories (the `unicode-general-category`
    /// crate's tables): controls (newline and tab aside), format characters (Cf) and the line
    /// and paragraph separators show as their code point; every other character as itself.
    #[test]
    fn exactly_the_controls_format_characters_and_separators_show_their_code_point() {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            let coded = matches!(
                get_general_category(c),
                G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
            ) && c != '\n'
                && c != '\t';
            let out = text(&c.to_string());
            if coded {
                assert_eq!(out, format!("[U+{:04X}]", u32::from(c)), "{c:?}");
            } else if !"&<>\"'".contains(c) {
                assert_eq!(out, c.to_string(), "{:04X}", u32::from(c));
            }
        }
    }

    #[test]
    fn a_url_part_cannot_leave_its_segment() {
        assert_eq!(
            url_part("a b/c?d#e&f\"g'h<i>"),
            "a%20b%2Fc%3Fd%23e%26f%22g%27h%3Ci%3E"
        );
        assert_eq!(url_part("dark-wing_1.x~"), "dark-wing_1.x~");
        assert_eq!(url_part("é"), "%C3%A9");
    }

    #[test]
    fn an_event_cannot_be_ended_or_forged_by_its_data() {
        assert_eq!(
            event("revision", "a\n\nevent: x\rdata: y"),
            "event: revision\ndata: a\ndata: \ndata: event: x\ndata: data: y\n\n"
        );
        assert_eq!(event("re\nvision", "{}"), "event: revision\ndata: {}\n\n");
    }

    #[test]
    fn query_values_decode_or_are_refused() {
        assert_eq!(
            decode_query_value("a+b%20c%2Fd").as_deref(),
            Some("a b c/d")
        );
        assert_eq!(decode_query_value("%E2%80%AE").as_deref(), Some("\u{202E}"));
        assert_eq!(decode_query_value("%zz"), None);
        assert_eq!(decode_query_value("%4"), None);
        assert_eq!(decode_query_value("%FF"), None);
        assert_eq!(decode_path_segment("a+b%2B").as_deref(), Some("a+b+"));
    }
}
