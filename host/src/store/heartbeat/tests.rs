use std::path::Path;

use super::*;
use crate::io::RealIo;
use crate::io::memory::Disk;

const AT: &str = "2026-12-01T12:00:00.000Z";

fn mem_paths() -> Paths {
    Paths::new(Path::new("/mem/repo"))
}

#[test]
fn a_heartbeat_is_written_by_rename_and_read_back() {
    let disk = Disk::new();
    let paths = mem_paths();
    disk.mkdir_all(&paths.git_dir);
    let io = disk.io(None);
    assert_eq!(read(&io, &paths, "darkwing"), Heartbeat::Unknown);
    write(&io, &paths, "darkwing", AT).unwrap();
    write(&io, &paths, "darkwing", "2026-12-01T12:00:01.000Z").unwrap();
    // The file holds the last time and a newline; no temp file stays beside it.
    let files = disk.files(&folder(&paths));
    let want = [(
        PathBuf::from("/mem/repo/.git/mosaic-queue.heartbeats/darkwing"),
        b"2026-12-01T12:00:01.000Z\n".to_vec(),
    )];
    assert_eq!(files.into_iter().collect::<Vec<_>>(), want);
    assert_eq!(
        read(&io, &paths, "darkwing"),
        Heartbeat::At("2026-12-01T12:00:01.000Z".to_owned())
    );
    assert_eq!(read(&io, &paths, "huey"), Heartbeat::Unknown);
}

#[test]
fn a_temp_file_a_killed_writer_left_is_replaced() {
    let disk = Disk::new();
    let paths = mem_paths();
    let temp = folder(&paths).join(format!(".darkwing.{}", std::process::id()));
    disk.put(&temp, b"half");
    write(&disk.io(None), &paths, "darkwing", AT).unwrap();
    assert_eq!(disk.get(&temp), None);
    assert_eq!(
        read(&disk.io(None), &paths, "darkwing"),
        Heartbeat::At(AT.to_owned())
    );
}

/// Every file that is not one timestamp in a regular file under the cap reads as unknown.
#[test]
fn hostile_files_in_memory_read_as_unknown() {
    let disk = Disk::new();
    let paths = mem_paths();
    let at = |seat: &str| path(&paths, seat);
    disk.put(&at("good"), format!("{AT}\n").as_bytes());
    disk.put(&at("bare"), AT.as_bytes());
    disk.put(&at("garbage"), b"yesterday\n");
    disk.put(&at("empty"), b"");
    disk.put(&at("twolines"), format!("{AT}\n\n").as_bytes());
    disk.put(&at("spaced"), format!(" {AT}\n").as_bytes());
    disk.put(&at("huge"), &[b'2'; 65]);
    disk.put(&at("binary"), &[0xff, 0xfe, 0x00]);
    disk.fifo(&at("fifo"));
    disk.symlink(&at("link"), &at("good"));
    disk.mkdir_all(&at("dir"));
    let io = disk.io(None);
    let got: Vec<(&str, Heartbeat)> = [
        "good", "bare", "garbage", "empty", "twolines", "spaced", "huge", "binary", "fifo", "link",
        "dir", "missing",
    ]
    .into_iter()
    .map(|seat| (seat, read(&io, &paths, seat)))
    .collect();
    let known = Heartbeat::At(AT.to_owned());
    let want: Vec<(&str, Heartbeat)> = vec![
        ("good", known.clone()),
        ("bare", known),
        ("garbage", Heartbeat::Unknown),
        ("empty", Heartbeat::Unknown),
        ("twolines", Heartbeat::Unknown),
        ("spaced", Heartbeat::Unknown),
        ("huge", Heartbeat::Unknown),
        ("binary", Heartbeat::Unknown),
        ("fifo", Heartbeat::Unknown),
        ("link", Heartbeat::Unknown),
        ("dir", Heartbeat::Unknown),
        ("missing", Heartbeat::Unknown),
    ];
    assert_eq!(got, want);
}

/// The same on a real file system, with the files only it can hold: a 1 GiB sparse file, and
/// a FIFO no writer opens (a blocking open would hang the test, not fail it).
#[test]
fn hostile_files_on_disk_read_as_unknown_without_blocking() {
    let root = std::env::temp_dir().join(format!("mosaic-heartbeat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let paths = Paths::new(&root);
    let dir = folder(&paths);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("good"), format!("{AT}\n")).unwrap();
    let sparse = std::fs::File::create(dir.join("sparse")).unwrap();
    sparse.set_len(1 << 30).unwrap();
    drop(sparse);
    std::os::unix::fs::symlink(dir.join("good"), dir.join("link")).unwrap();
    std::fs::create_dir(dir.join("dir")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::write(dir.join("garbage"), "not a time").unwrap();
    let got: Vec<Heartbeat> = ["good", "sparse", "link", "dir", "fifo", "garbage"]
        .into_iter()
        .map(|seat| read(&RealIo, &paths, seat))
        .collect();
    let mut want = vec![Heartbeat::Unknown; 6];
    want[0] = Heartbeat::At(AT.to_owned());
    assert_eq!(got, want);
    // A write replaces the hostile file at the name by rename, never writing through it.
    write(&RealIo, &paths, "link", AT).unwrap();
    assert!(
        !std::fs::symlink_metadata(dir.join("link"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(dir.join("good")).unwrap(),
        format!("{AT}\n").as_bytes()
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_folder_that_is_a_symlink_or_a_file_is_never_written_through() {
    let paths = mem_paths();
    let disk = Disk::new();
    disk.mkdir_all(Path::new("/elsewhere"));
    disk.mkdir_all(&paths.git_dir);
    disk.symlink(&folder(&paths), Path::new("/elsewhere"));
    let err = write(&disk.io(None), &paths, "darkwing", AT).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/mem/repo/.git/mosaic-queue.heartbeats is not a directory (a symlink or a file is at its name); remove it and run the command again"
    );
    assert_eq!(disk.names(Path::new("/elsewhere")), Vec::<String>::new());
    disk.remove(&folder(&paths));
    disk.put(&folder(&paths), b"a file");
    assert!(write(&disk.io(None), &paths, "darkwing", AT).is_err());
}
