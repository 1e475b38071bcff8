//! Keys of the additive position hash used to de-duplicate plays.
//!
//! The key of a position is `sum(board[i] * KEYS[i]) + off * KEY_OFF` in wrapping 64-bit
//! arithmetic. It is linear, so a checker move updates it with two or three additions instead of
//! a rehash. Equal keys are always confirmed by comparing the positions, so a collision can
//! never merge two different plays.

const fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One key per index of the signed board.
pub(crate) const KEYS: [u64; 26] = {
    let mut keys = [0u64; 26];
    let mut i = 0;
    while i < 26 {
        keys[i] = splitmix64(0x7461_766c_6100 + i as u64);
        i += 1;
    }
    keys
};

/// The key of one checker borne off by the side on roll.
pub(crate) const KEY_OFF: u64 = splitmix64(0x7461_766c_61ff);
