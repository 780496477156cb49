//! The command JSON the Node module's `apply` takes, read by its own scanner. Invariants: it
//! answers as `Command`'s derived `Deserialize` does (same command, or an error with the same
//! text, word for word), and an accepted command written back as JSON reads back the same.

use mosaic_queue_core::Command;

/// Checks the invariant on one input; panics when it does not hold.
pub fn check(bytes: &[u8]) {
    let Ok(text) = core::str::from_utf8(bytes) else {
        return;
    };
    let ours = mosaic_queue_wasm::read_command(text).map_err(|e| e.to_string());
    let derived = serde_json::from_str::<Command>(text).map_err(|e| e.to_string());
    match (&ours, &derived) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "another command than the derived code's");
            let back = serde_json::to_string(a).unwrap();
            let again = mosaic_queue_wasm::read_command(&back).expect("written back, refused");
            assert_eq!(&again, a);
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "another error than the derived code's"),
        _ => panic!("the readers disagree: ours {ours:?}, derived {derived:?}"),
    }
}
