//! Header and trailer round trips.

use super::*;

#[test]
fn header_round_trips() {
    let mut free = BitVec::repeat(true, 6);
    free.set(4, false);
    let mut exits = BitVec::repeat(false, 5);
    exits.set(2, true);
    let h = HeaderBody {
        rows: 2,
        cols: 3,
        rules: Rules {
            thief_first: true,
            ..Rules::default()
        },
        has_dte: true,
        cop: Some((0, 0)),
        thief: None,
        value_block_states: VALUE_BLOCK_STATES,
        dte_block_states: DTE_BLOCK_STATES,
        engine: "parallel".into(),
        free,
        exits,
        shard: None,
        kcops: None,
    };
    let bytes = encode_header(&h);
    assert_eq!(&bytes[..8], MAGIC);
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(decode_body(&bytes[16..16 + len], 16, VERSION).unwrap(), h);
    // A shard: 5 cells, 50 states, cop cells 2..5 (row 1 on).
    let shard = HeaderBody {
        shard: Some(ShardInfo {
            index: 1,
            count: 2,
            first_state: 20,
            end_state: 50,
            first_row: 1,
            end_row: 2,
        }),
        ..h.clone()
    };
    let bytes = encode_header(&shard);
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(
        decode_body(&bytes[16..16 + len], 16, VERSION).unwrap(),
        shard
    );
    // A band that does not start at a cop cell is refused.
    let bad = HeaderBody {
        shard: Some(ShardInfo {
            first_state: 21,
            ..shard.shard.unwrap()
        }),
        ..h
    };
    let bytes = encode_header(&bad);
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert!(decode_body(&bytes[16..16 + len], 16, VERSION)
        .unwrap_err()
        .contains("does not fit"));
    for bits in 0..64 {
        assert_eq!(rules_bits(rules_from_bits(bits).unwrap()), bits);
    }
}

/// A several-cops shard's header (version 6): its band of whole
/// multisets round-trips; a band inside a multiset, one past the game's
/// states or with cop rows set is refused, and so is the shard flag in a
/// version 5 header.
#[test]
fn several_cops_shard_headers_round_trip() {
    // Two cops on 5 cells: 15 multisets of 10 states.
    let h = HeaderBody {
        rows: 1,
        cols: 5,
        rules: Rules::default(),
        has_dte: true,
        cop: None,
        thief: None,
        value_block_states: 1 << 15,
        dte_block_states: 1 << 15,
        engine: "distributed".into(),
        free: BitVec::repeat(true, 5),
        exits: BitVec::repeat(false, 5),
        shard: Some(ShardInfo {
            index: 1,
            count: 3,
            first_state: 40,
            end_state: 150,
            first_row: 0,
            end_row: 0,
        }),
        kcops: Some(KSection {
            graph: false,
            cops: 2,
            cop_speed: 1,
            thief_speed: 1,
            thief_tile: 8,
            start: None,
            edges: Vec::new(),
        }),
    };
    let decode = |h: &HeaderBody, version: u32| {
        let bytes = encode_header(h);
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        decode_body(&bytes[16..16 + len], 16, version)
    };
    assert_eq!(decode(&h, VERSION).unwrap(), h);
    let with = |f: &dyn Fn(&mut ShardInfo)| {
        let mut bad = h.clone();
        f(bad.shard.as_mut().unwrap());
        bad
    };
    for bad in [
        with(&|s| s.first_state = 45),
        with(&|s| s.end_state = 160),
        with(&|s| s.end_row = 1),
    ] {
        assert!(decode(&bad, VERSION).unwrap_err().contains("does not fit"));
    }
    assert!(decode(&h, 5).unwrap_err().contains("unknown flags"));
}

#[test]
fn trailer_round_trips() {
    let t = Trailer {
        index_offset: 99,
        value_blocks: 3,
        dte_blocks: 6,
        states: 12345,
        counts: Counts {
            win: 1,
            loss: 2,
            draw: 3,
        },
        levels: 17,
        max_dte: 16,
    };
    let bytes = encode_trailer(b"index", &t);
    assert_eq!(bytes.len(), TRAILER_BYTES);
    assert_eq!(decode_trailer(&bytes), t);
}
