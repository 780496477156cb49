//! The real I/O's own tests: a match read block by block, pieces written as one write and a
//! short write's half, the caps as refusals print them, and what the checked open refuses.

use std::path::PathBuf;

use rustix::fs::{FileType, Mode};

use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mosaic-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_match_compares_every_byte_and_refuses_as_a_read_does() {
    let dir = scratch("matches");
    let file = dir.join("queue.json");
    // More than one block, so a difference in a later block counts.
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &bytes).unwrap();
    assert!(matches_checked(&file, Kind::QueueJson, &bytes).unwrap());
    let mut late = bytes.clone();
    late[150_000] ^= 1;
    assert!(!matches_checked(&file, Kind::QueueJson, &late).unwrap());
    assert!(!matches_checked(&file, Kind::QueueJson, &bytes[..199_999]).unwrap());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(!matches_checked(&file, Kind::QueueJson, &longer).unwrap());
    let e = matches_checked(&dir, Kind::QueueJson, &bytes).unwrap_err();
    assert!(matches!(refusal(&e), Some(Refusal::NotRegular { .. })));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Cuts every write short and keeps what each write call said it landed.
struct ShortWrites(std::sync::Mutex<Vec<Vec<u8>>>);

impl Hook for ShortWrites {
    fn before(&self, call: &Call<'_>) -> Option<Fault> {
        matches!(call, Call::Write(..)).then_some(Fault::Short)
    }
    fn after(&self, call: &Call<'_>) {
        if let Call::Write(_, pieces) = call {
            self.0.lock().unwrap().push(pieces.concat());
        }
    }
}

#[test]
fn pieces_are_one_write_and_a_short_one_lands_half_the_whole() {
    let dir = scratch("pieces");
    let whole = dir.join("whole");
    RealIo
        .create_synced_pieces(&whole, &[b"head,", b"", b"reused log,", b"tail"])
        .unwrap();
    assert_eq!(std::fs::read(&whole).unwrap(), b"head,reused log,tail");
    let hook: &'static ShortWrites = Box::leak(Box::new(ShortWrites(Default::default())));
    let sys = Sys { hook: Some(hook) };
    let cut = dir.join("cut");
    let mut file = std::fs::File::create(&cut).unwrap();
    // 20 bytes: the first 10 land, all of the first piece and half of the second.
    let e = sys
        .write_all(&mut file, &cut, &[b"head,", b"reused log,", b"tail"])
        .unwrap_err();
    assert_eq!(
        e.raw_os_error(),
        Some(rustix::io::Errno::NOSPC.raw_os_error())
    );
    assert_eq!(std::fs::read(&cut).unwrap(), b"head,reuse");
    assert_eq!(*hook.0.lock().unwrap(), [b"head,reuse".to_vec()]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn caps_print_in_binary_units() {
    assert_eq!(size_text(QUEUE_JSON_CAP), "256 MiB");
    assert_eq!(size_text(STATE_CAP), "64 KiB");
    assert_eq!(size_text(1000), "1000 bytes");
}

#[test]
fn refuses_what_is_not_a_plain_file_of_a_sane_size() {
    let dir = scratch("refuse");
    let fifo = dir.join("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    // No writer: a blocking open would never return.
    let e = read_checked(&fifo, Kind::QueueJson).unwrap_err();
    assert_eq!(
        refusal(&e).unwrap().to_string(),
        format!(
            "{} is a named pipe (FIFO), not a regular file",
            fifo.display()
        )
    );
    let e = read_checked(&dir, Kind::Witness).unwrap_err();
    assert!(matches!(
        refusal(&e),
        Some(Refusal::NotRegular {
            what: "a directory",
            ..
        })
    ));
    let e = read_checked(Path::new("/dev/zero"), Kind::Manifest).unwrap_err();
    assert!(matches!(refusal(&e), Some(Refusal::NotRegular { .. })));

    let big = dir.join("big");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(STATE_CAP + 1).unwrap();
    let e = read_checked(&big, Kind::Lock).unwrap_err();
    assert_eq!(
        refusal(&e).unwrap().line(),
        format!(
            "{} is larger than the 64 KiB cap for a queue lock; check that no queue command is running, then remove it by hand",
            big.display()
        )
    );
    f.set_len(STATE_CAP).unwrap();
    assert_eq!(
        read_checked(&big, Kind::Lock).unwrap().len() as u64,
        STATE_CAP
    );

    let link = dir.join("link");
    std::os::unix::fs::symlink(&big, &link).unwrap();
    let e = read_checked(&link, Kind::QueueMd).unwrap_err();
    assert!(matches!(refusal(&e), Some(Refusal::Symlink { .. })));
    assert_eq!(
        read_checked(&link, Kind::Base).unwrap().len() as u64,
        STATE_CAP
    );

    let e = read_checked(&dir.join("absent"), Kind::Lock).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    assert!(refusal(&e).is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
