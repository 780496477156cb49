//! The members of a command's JSON text as written, found by scanning text serde_json has
//! already checked. serde_json's raw values would do this, but turning them on changes how it
//! reads a `Value` (the core's `set` values) in every crate of the build.

/// One member of the top-level object (`key` is its name as written, quotes included) or one
/// element of the top-level array (`key` is `None`); `at` is where its value starts.
pub struct Member<'a> {
    pub key: Option<&'a str>,
    pub value: &'a str,
    pub at: usize,
}

/// The members of the object or array `text` starts with. `text` must begin with one
/// well-formed JSON value; whatever follows it is not looked at.
pub fn split(text: &str) -> Vec<Member<'_>> {
    let mut scan = Scan { text, pos: 0 };
    scan.space();
    let object = match scan.peek() {
        Some(b'{') => true,
        Some(b'[') => false,
        _ => return Vec::new(),
    };
    scan.pos += 1;
    let mut members = Vec::new();
    loop {
        scan.space();
        match scan.peek() {
            Some(b'}' | b']') | None => return members,
            Some(b',') => {
                scan.pos += 1;
                scan.space();
            }
            Some(_) => {}
        }
        let key = object.then(|| {
            let key = scan.value();
            scan.space();
            scan.pos += 1; // the colon
            scan.space();
            key
        });
        let at = scan.pos;
        let value = scan.value();
        members.push(Member { key, value, at });
    }
}

/// Where the innermost object or array still open after `text[..end]` starts, if any.
pub fn innermost(text: &str, end: usize) -> Option<usize> {
    let mut scan = Scan { text, pos: 0 };
    let mut open = Vec::new();
    while scan.pos < end {
        match scan.peek() {
            Some(b'"') => {
                scan.string();
                continue;
            }
            Some(b'{' | b'[') => open.push(scan.pos),
            Some(b'}' | b']') => {
                open.pop();
            }
            _ => {}
        }
        scan.pos += 1;
    }
    open.pop()
}

struct Scan<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Past a string whose opening quote is at `pos`.
    fn string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += if b == b'\\' { 2 } else { 1 };
            if b == b'"' {
                return;
            }
        }
    }

    /// One value's text. Every byte it stops at is ASCII, so the slice is on char boundaries.
    fn value(&mut self) -> &'a str {
        let start = self.pos;
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(b) = self.peek() {
                    match b {
                        b'"' => {
                            self.string();
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    self.pos += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.pos += 1;
                }
            }
        }
        self.text.get(start..self.pos).unwrap_or_default()
    }
}
