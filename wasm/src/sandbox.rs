//! Zero-import exports for the host's wasmtime sandbox: the host copies the snapshot's bytes
//! into buffers it takes from `alloc`, calls `verify_snapshot`, and reads back one result
//! buffer whose layout the core's `sandbox` module defines. The module imports nothing.

use mosaic_queue_core::sandbox::{self, Refusal};

/// Hands the host `len` writable bytes; 0 when the memory cap refuses them.
// Unmangled only in the wasm module: a native build must not shadow libc's `free`.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut buf: Vec<u8> = Vec::new();
    if buf.try_reserve_exact(len).is_err() {
        return core::ptr::null_mut();
    }
    // SAFETY: the capacity was just reserved, and the bytes are plain u8 that the host writes
    // before anything reads them; `free` gives the allocation back with the same length.
    unsafe { buf.set_len(len) };
    Box::into_raw(buf.into_boxed_slice()).cast::<u8>()
}

/// Gives back a buffer from `alloc`, or the result of `verify_snapshot`, with its length.
///
/// # Safety
/// `ptr` and `len` are exactly what `alloc` returned and was asked for (or a result's address
/// and total length), and the buffer is freed once.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn free(ptr: *mut u8, len: usize) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: the caller passes back a boxed slice of exactly `len` bytes made here.
    drop(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// Verifies the snapshot in the buffers (the base only when `has_base` is not 0; the archives,
/// packed by `sandbox::pack_archives`, only when `archives_len` is not 0) and returns the
/// address of the result: a little-endian u32 length `n`, then the `n` bytes of
/// `mosaic_queue_core::sandbox::encode` (the core's `sandbox` module documents the layout;
/// the host decodes it with `sandbox::decode`).
///
/// The host frees the result with `free(ptr, 4 + n)`.
///
/// # Safety
/// Each pointer and length pair is a buffer from `alloc` that the host filled.
#[cfg_attr(target_arch = "wasm32", unsafe(no_mangle))]
pub unsafe extern "C" fn verify_snapshot(
    json_ptr: *const u8,
    json_len: usize,
    md_ptr: *const u8,
    md_len: usize,
    base_ptr: *const u8,
    base_len: usize,
    has_base: u32,
    archives_ptr: *const u8,
    archives_len: usize,
) -> *mut u8 {
    // SAFETY: the host filled these buffers through `alloc` and keeps them until after this
    // call returns; nothing else touches them meanwhile.
    let (json, md, base, packed) = unsafe {
        (
            core::slice::from_raw_parts(json_ptr, json_len),
            core::slice::from_raw_parts(md_ptr, md_len),
            (has_base != 0).then(|| core::slice::from_raw_parts(base_ptr, base_len)),
            match archives_len {
                0 => &[][..],
                n => core::slice::from_raw_parts(archives_ptr, n),
            },
        )
    };
    let answer = match sandbox::unpack_archives(packed) {
        Ok(archives) => mosaic_queue_core::verify_snapshot_archived(json, md, base, &archives)
            .map_err(|e| Refusal::from(&e)),
        Err(malformed) => Err(Refusal {
            kind: "archives-malformed".into(),
            reason: sandbox::Reason::Other(malformed.to_string()),
        }),
    };
    let payload = sandbox::encode(&answer);
    let mut out = Vec::with_capacity(4 + payload.len());
    out.extend_from_slice(&len32(payload.len()).to_le_bytes());
    out.extend_from_slice(&payload);
    Box::into_raw(out.into_boxed_slice()).cast::<u8>()
}

/// Lengths inside a 32-bit memory always fit in a u32.
fn len32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// `memcmp` for the module, eight bytes at a time.
///
/// On wasm32 there is no libc: `memcmp` comes from compiler-builtins, whose portable version
/// compares one byte per loop iteration, and wasm has no instruction for it (bulk memory gives
/// `memory.copy` and `memory.fill` only). Every string equality in the check lowers to it:
/// the replay's receipts and rows, the reader's keys, the walk over a base's entries, where
/// the native build calls the C library's vectorized one. The definition here is strong and
/// compiler-builtins' is weak, so the linker takes this one; it exists only in the wasm32
/// module, never in a native build.
///
/// # Safety
/// `a` and `b` are readable for `n` bytes (the C contract).
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: `i + 8 <= n`, and both are readable for `n` bytes; wasm loads need no
        // alignment.
        let (x, y) = unsafe {
            (
                a.add(i).cast::<u64>().read_unaligned(),
                b.add(i).cast::<u64>().read_unaligned(),
            )
        };
        if x != y {
            // Little-endian: the lowest differing bit lies in the first differing byte.
            i += ((x ^ y).trailing_zeros() / 8) as usize;
            // SAFETY: `i < n`, inside both buffers.
            return unsafe { i32::from(*a.add(i)) - i32::from(*b.add(i)) };
        }
        i += 8;
    }
    while i < n {
        // SAFETY: `i < n`.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}
