//! Unit tests of the bitstream reader on hand-built streams.
use super::*;

/// A little bit writer for hand-built streams.
#[derive(Default)]
struct W {
    bytes: Vec<u8>,
    bit: u64,
}
impl W {
    fn put(&mut self, v: u64, w: u32) {
        for i in 0..w {
            let b = (v >> i) & 1;
            let byte = (self.bit / 8) as usize;
            if byte >= self.bytes.len() {
                self.bytes.push(0);
            }
            self.bytes[byte] |= (b as u8) << (self.bit % 8);
            self.bit += 1;
        }
    }
    fn vbr(&mut self, mut v: u64, w: u32) {
        let hi = 1u64 << (w - 1);
        loop {
            if v < hi {
                self.put(v, w);
                return;
            }
            self.put((v & (hi - 1)) | hi, w);
            v >>= w - 1;
        }
    }
    fn align(&mut self) {
        while !self.bit.is_multiple_of(32) {
            self.put(0, 1);
        }
    }
}

fn stream(body: impl FnOnce(&mut W)) -> Vec<u8> {
    let mut w = W::default();
    for b in MAGIC {
        w.put(u64::from(b), 8);
    }
    body(&mut w);
    w.align();
    w.bytes
}

/// Writes a block with abbrev width 4 and patches its length.
fn block(w: &mut W, outer: u32, id: u64, body: impl FnOnce(&mut W)) {
    w.put(1, outer);
    w.vbr(id, 8);
    w.vbr(4, 4);
    w.align();
    let len_at = w.bytes.len();
    w.put(0, 32);
    let start = w.bit;
    body(w);
    w.put(0, 4);
    w.align();
    let words = ((w.bit - start) / 32) as u32;
    w.bytes[len_at..len_at + 4].copy_from_slice(&words.to_le_bytes());
}

#[test]
fn unabbreviated_and_abbreviated_records() {
    let data = stream(|w| {
        block(w, 2, 8, |w| {
            // UNABBREV code 7, ops [1, 300]
            w.put(3, 4);
            w.vbr(7, 6);
            w.vbr(2, 6);
            w.vbr(1, 6);
            w.vbr(300, 6);
            // DEFINE_ABBREV [literal 9, fixed(0), array of char6]
            w.put(2, 4);
            w.vbr(4, 5);
            w.put(1, 1);
            w.vbr(9, 8);
            w.put(0, 1);
            w.put(1, 3);
            w.vbr(0, 5);
            w.put(0, 1);
            w.put(3, 3);
            w.put(0, 1);
            w.put(4, 3);
            // record with abbrev 4: array "aZ"
            w.put(4, 4);
            w.vbr(2, 6);
            w.put(0, 6);
            w.put(51, 6);
        });
        w.put(0, 32); // trailing padding
    });
    let mut c = Cursor::new(&data, 0x100).unwrap();
    assert_eq!(c.next_item().unwrap(), Some(Item::Enter(8)));
    assert_eq!(c.next_item().unwrap(), Some(Item::Record(7)));
    assert_eq!(c.ops(), &[1, 300]);
    assert_eq!(c.next_item().unwrap(), Some(Item::Record(9)));
    assert_eq!(c.ops(), &[0, u64::from(b'a'), u64::from(b'Z')]);
    assert_eq!(c.next_item().unwrap(), Some(Item::End));
    assert_eq!(c.next_item().unwrap(), None);
    assert_eq!(walk(&data, 0).unwrap(), 2);
}

#[test]
fn blockinfo_abbrevs_apply_first_and_blocks_skip() {
    let data = stream(|w| {
        block(w, 2, 8, |w| {
            block(w, 4, 0, |w| {
                // SETBID 11
                w.put(3, 4);
                w.vbr(1, 6);
                w.vbr(1, 6);
                w.vbr(11, 6);
                // abbrev [literal 4, vbr8]
                w.put(2, 4);
                w.vbr(2, 5);
                w.put(1, 1);
                w.vbr(4, 8);
                w.put(0, 1);
                w.put(2, 3);
                w.vbr(8, 5);
            });
            block(w, 4, 11, |w| {
                w.put(4, 4);
                w.vbr(1000, 8);
            });
            block(w, 4, 12, |w| {
                w.put(3, 4);
                w.vbr(1, 6);
                w.vbr(0, 6);
            });
        });
    });
    let mut c = Cursor::new(&data, 0).unwrap();
    assert_eq!(c.next_item().unwrap(), Some(Item::Enter(8)));
    assert_eq!(c.next_item().unwrap(), Some(Item::Enter(11)));
    assert_eq!(c.next_item().unwrap(), Some(Item::Record(4)));
    assert_eq!(c.ops(), &[1000]);
    assert_eq!(c.next_item().unwrap(), Some(Item::End));
    assert_eq!(c.next_item().unwrap(), Some(Item::Enter(12)));
    c.skip_block().unwrap();
    assert_eq!(c.next_item().unwrap(), Some(Item::End));
    assert_eq!(c.next_item().unwrap(), None);
}

#[test]
fn hostile_counts_fail_with_offsets() {
    let data = stream(|w| {
        block(w, 2, 8, |w| {
            w.put(3, 4);
            w.vbr(7, 6);
            w.vbr(1 << 40, 6);
        });
    });
    let mut c = Cursor::new(&data, 0x40).unwrap();
    c.next_item().unwrap();
    let e = c.next_item().unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadSize);
    assert!(e.offset >= 0x40 && e.offset <= 0x40 + data.len() as u64, "{e}");
    // Over-long VBR.
    let data = stream(|w| {
        block(w, 2, 8, |w| {
            w.put(3, 4);
            w.vbr(7, 6);
            w.vbr(1, 6);
            for _ in 0..30 {
                w.put(0x3F, 6);
            }
            w.put(1, 6);
        });
    });
    let mut c = Cursor::new(&data, 0).unwrap();
    c.next_item().unwrap();
    assert_eq!(c.next_item().unwrap_err().kind, ErrorKind::Malformed);
    for n in 0..data.len() {
        let _ = walk(&data[..n], 0);
    }
}

#[test]
fn signed_vbr() {
    assert_eq!(decode_signed(2), 1);
    assert_eq!(decode_signed(3), u64::MAX);
    assert_eq!(decode_signed(1), 1 << 63);
    // -2147483623, the experimental opcode 0x80000019 as i32.
    assert_eq!(decode_signed(4294967247) as u32, 0x8000_0019);
}
