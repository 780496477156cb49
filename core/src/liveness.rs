//! Signs of life and a claim's state, as a pure function: a claim (its holder, its lease and
//! the last sign of life the log proves), the holder's heartbeat as the host read it, and
//! `now` give the lease's end, the last sign of life and the state: live, quiet, expired or
//! unknown. `next` and `take` judge claims with it; docs/coordination.md gives the rules.

use alloc::collections::BTreeMap;
use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::model::{Row, Status};
use crate::time::{self, SECOND};

/// How far ahead of `now` a sign of life may stand and still count, in seconds. A clock
/// stepped back leaves the signs written before the step ahead of it: within this bound they
/// keep the claim live (never expired early); past it a sign cannot be told from a forged
/// one, and the claim is unknown (never expired either) until its holder shows life again.
/// So no stamp keeps a claim alive for more than this plus its lease after it is read.
pub const MAX_AHEAD: u32 = 600;

/// What the host knows of a seat's heartbeat: the time its heartbeat file holds, or nothing
/// (the file is missing, unreadable or hostile). A time that is not a timestamp of the log's
/// form counts as nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heartbeat {
    Unknown,
    At(String),
}

/// The heartbeats the host read, by seat: a seat not listed has an unknown heartbeat. `none()`
/// knows of none, so no claim is ever judged expired with it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(transparent)]
pub struct Signs {
    heartbeats: BTreeMap<String, String>,
}

impl Signs {
    /// No heartbeat known: every leased claim whose log entries do not keep it alive is
    /// unknown, never expired.
    pub fn none() -> Signs {
        Signs::default()
    }

    /// These signs with `seat`'s heartbeat stamped `at`, as its file holds it.
    pub fn with(mut self, seat: &str, at: &str) -> Signs {
        self.heartbeats.insert(String::from(seat), String::from(at));
        self
    }

    /// `seat`'s heartbeat.
    pub fn heartbeat(&self, seat: &str) -> Heartbeat {
        match self.heartbeats.get(seat) {
            Some(at) => Heartbeat::At(at.clone()),
            None => Heartbeat::Unknown,
        }
    }

    /// How many seats have a heartbeat here.
    pub fn len(&self) -> usize {
        self.heartbeats.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heartbeats.is_empty()
    }
}

/// A claim as judged: who holds it, its lease (seconds; none never expires) and the last sign
/// of life the log proves (the holder's latest entry on the row, or the one that gave it the
/// claim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim<'a> {
    pub holder: &'a str,
    pub lease: Option<u32>,
    pub logged: Option<&'a str>,
}

impl<'a> Claim<'a> {
    /// The claim on `row`: a row in progress under a seat. Leases bind no other row.
    pub fn of(row: &'a Row) -> Option<Claim<'a>> {
        if row.status != Status::InProgress {
            return None;
        }
        let holder = row.owner.as_deref()?;
        Some(Claim {
            holder,
            lease: row.lease.as_ref().map(|l| l.seconds),
            logged: row.lease.as_ref().map(|l| l.seen.as_str()),
        })
    }
}

/// A claim's state.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Liveness {
    /// A sign of life within the first half of the lease.
    Live,
    /// Still within its lease, but silent for more than half of it: a renewal was missed.
    Quiet,
    /// No sign of life for the whole lease, and the heartbeat was read: reclaimable.
    Expired,
    /// Past its lease by what is known, but the heartbeat could not be read (or a sign stands
    /// too far ahead): never expired, never reclaimed by `take`.
    Unknown,
    /// A claim without a lease, which never expires.
    Unleased,
}

impl Liveness {
    pub fn as_str(self) -> &'static str {
        match self {
            Liveness::Live => "live",
            Liveness::Quiet => "quiet",
            Liveness::Expired => "expired",
            Liveness::Unknown => "unknown",
            Liveness::Unleased => "unleased",
        }
    }
}

/// What `judge` found.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    pub state: Liveness,
    /// When the lease runs out, counted from the last sign of life; `None` without a lease
    /// or without a sign that counts.
    pub lease_end: Option<String>,
    /// The later of the heartbeat and the log's sign, of those that count.
    pub last_sign: Option<String>,
    /// Whole seconds since the last sign (0 when it stands ahead of now).
    pub silent: Option<u64>,
    /// Seconds from now to the lease's end, negative once it has passed.
    pub left: Option<i64>,
}

/// Judges `claim` at `now` with its holder's `heartbeat`. Unknown is never expired: a claim
/// expires only when the heartbeat was read and no sign of life that counts is younger than
/// the lease.
pub fn judge(claim: &Claim, heartbeat: &Heartbeat, now: &str) -> Judged {
    let mut out = Judged {
        state: Liveness::Unknown,
        lease_end: None,
        last_sign: None,
        silent: None,
        left: None,
    };
    let Some(now) = time::millis(now) else {
        if claim.lease.is_none() {
            out.state = Liveness::Unleased;
        }
        return out;
    };
    let bound = now + i64::from(MAX_AHEAD) * SECOND;
    let counts = |t: Option<i64>| t.filter(|&t| t <= bound);
    let logged = claim.logged.and_then(time::millis);
    let beat = match heartbeat {
        Heartbeat::At(at) => time::millis(at),
        Heartbeat::Unknown => None,
    };
    // A heartbeat not read, or a sign too far ahead, leaves the end of the lease in doubt.
    let doubt = counts(beat).is_none() || (logged.is_some() && counts(logged).is_none());
    let last = counts(logged).max(counts(beat));
    out.last_sign = last.map(time::stamp);
    out.silent = last.map(|l| ((now - l).max(0) / SECOND) as u64);
    let (Some(seconds), Some(last)) = (claim.lease, last) else {
        if claim.lease.is_none() {
            out.state = Liveness::Unleased;
        }
        return out;
    };
    let length = i64::from(seconds) * SECOND;
    let end = last + length;
    out.lease_end = Some(time::stamp(end));
    out.left = Some((end - now).div_euclid(SECOND));
    out.state = if now < end {
        if now - last > length / 2 {
            Liveness::Quiet
        } else {
            Liveness::Live
        }
    } else if doubt {
        Liveness::Unknown
    } else {
        Liveness::Expired
    };
    out
}

/// The first moment after `now`, in milliseconds since the Unix epoch, at which `judge` may
/// find `claim` in another state with the same `heartbeat`: half its lease past the last sign
/// that counts (live turns quiet a millisecond later), the lease's end (quiet turns expired,
/// or unknown), or a sign standing too far ahead coming within `MAX_AHEAD` of it (it starts to
/// count). `None` when time alone changes nothing: a claim without a lease, or a `now` that is
/// not a timestamp. A board uses it to set one timer for the earliest of its claims.
pub fn turns_at(claim: &Claim, heartbeat: &Heartbeat, now: &str) -> Option<i64> {
    let now = time::millis(now)?;
    let seconds = claim.lease?;
    let bound = i64::from(MAX_AHEAD) * SECOND;
    let signs = [
        claim.logged.and_then(time::millis),
        match heartbeat {
            Heartbeat::At(at) => time::millis(at),
            Heartbeat::Unknown => None,
        },
    ];
    let mut next: Option<i64> = None;
    let mut consider = |t: i64| {
        if t > now {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
    };
    let mut last = None;
    for t in signs.into_iter().flatten() {
        if t <= now + bound {
            last = last.max(Some(t));
        } else {
            consider(t - bound);
        }
    }
    if let Some(last) = last {
        let length = i64::from(seconds) * SECOND;
        consider(last + length / 2 + 1);
        consider(last + length);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-12-01T12:00:00.000Z";

    fn claim(lease: Option<u32>, logged: &str) -> Claim<'_> {
        Claim {
            holder: "darkwing",
            lease,
            logged: Some(logged),
        }
    }

    fn at(t: &str) -> Heartbeat {
        Heartbeat::At(String::from(t))
    }

    /// Each state at the edges of the lease (an hour): expectations written out by hand.
    #[test]
    fn states_turn_at_half_the_lease_and_at_its_end() {
        let hour = Some(3_600);
        for (logged, beat, state, end, left) in [
            // The heartbeat is the later sign: 30 min silent is live, a second more is quiet.
            (
                "2026-12-01T10:00:00.000Z",
                at("2026-12-01T11:30:00.000Z"),
                Liveness::Live,
                "2026-12-01T12:30:00.000Z",
                1_800,
            ),
            (
                "2026-12-01T10:00:00.000Z",
                at("2026-12-01T11:29:59.999Z"),
                Liveness::Quiet,
                "2026-12-01T12:29:59.999Z",
                1_799,
            ),
            // The log's sign is the later one; an hour to the millisecond has expired.
            (
                "2026-12-01T11:00:00.000Z",
                at("2026-12-01T09:00:00.000Z"),
                Liveness::Expired,
                "2026-12-01T12:00:00.000Z",
                0,
            ),
            (
                "2026-12-01T11:00:00.001Z",
                at("2026-12-01T09:00:00.000Z"),
                Liveness::Quiet,
                "2026-12-01T12:00:00.001Z",
                0,
            ),
            // No heartbeat read: the log alone keeps it live, and past its end it is unknown.
            (
                "2026-12-01T11:45:00.000Z",
                Heartbeat::Unknown,
                Liveness::Live,
                "2026-12-01T12:45:00.000Z",
                2_700,
            ),
            (
                "2026-12-01T09:00:00.000Z",
                Heartbeat::Unknown,
                Liveness::Unknown,
                "2026-12-01T10:00:00.000Z",
                -7_200,
            ),
            // A heartbeat that is not a timestamp counts as none.
            (
                "2026-12-01T09:00:00.000Z",
                at("yesterday"),
                Liveness::Unknown,
                "2026-12-01T10:00:00.000Z",
                -7_200,
            ),
        ] {
            let got = judge(&claim(hour, logged), &beat, NOW);
            assert_eq!(got.state, state, "{logged} {beat:?}");
            assert_eq!(got.lease_end.as_deref(), Some(end), "{logged} {beat:?}");
            assert_eq!(got.left, Some(left), "{logged} {beat:?}");
        }
    }

    /// A clock stepped back puts the signs ahead of now: within the bound the claim is live,
    /// past it unknown; neither is ever expired, and the bound holds the claim's life to at
    /// most the bound plus the lease.
    #[test]
    fn signs_ahead_of_now_never_expire_a_claim_and_are_bounded() {
        let hour = Some(3_600);
        let old = "2026-12-01T08:00:00.000Z";
        for (beat, state) in [
            ("2026-12-01T12:10:00.000Z", Liveness::Live),
            ("2026-12-01T12:10:00.001Z", Liveness::Unknown),
            ("2099-01-01T00:00:00.000Z", Liveness::Unknown),
        ] {
            let got = judge(&claim(hour, old), &at(beat), NOW);
            assert_eq!(got.state, state, "{beat}");
            assert_eq!(
                got.silent,
                Some(if state == Liveness::Live { 0 } else { 14_400 })
            );
        }
        // The stamp 10 minutes ahead keeps the claim until an hour after it, and no longer.
        let ahead = at("2026-12-01T12:10:00.000Z");
        for (now, state) in [
            ("2026-12-01T13:09:59.999Z", Liveness::Quiet),
            ("2026-12-01T13:10:00.000Z", Liveness::Expired),
        ] {
            assert_eq!(judge(&claim(hour, old), &ahead, now).state, state, "{now}");
        }
        // A log sign far ahead (a clock stepped back after the entry) is unknown, not live.
        let far = claim(hour, "2026-12-02T00:00:00.000Z");
        let got = judge(&far, &at(old), NOW);
        assert_eq!(
            (got.state, got.last_sign.as_deref()),
            (Liveness::Unknown, Some(old))
        );
    }

    /// `turns_at` against `judge` itself: the state is the same from `now` to a millisecond
    /// before the moment it names, and at that moment either the state changes or a sign
    /// starts to count; claims with no lease, or judged at no timestamp, never turn.
    #[test]
    fn a_claim_turns_exactly_when_judge_finds_it_changed() {
        let ms = |t: &str| time::millis(t).unwrap();
        let minute = Some(60);
        let now = "2026-12-01T12:00:00.000Z";
        let signs = [
            "2026-12-01T11:59:40.000Z",
            "2026-12-01T11:59:30.000Z",
            "2026-12-01T11:59:29.999Z",
            "2026-12-01T11:59:00.001Z",
            "2026-12-01T11:58:00.000Z",
            "2026-12-01T12:05:00.000Z",
            "2026-12-01T12:10:00.000Z",
            "2026-12-01T12:10:00.001Z",
            "2026-12-01T12:30:00.000Z",
        ];
        let mut beats: alloc::vec::Vec<Heartbeat> = signs.iter().map(|t| at(t)).collect();
        beats.push(Heartbeat::Unknown);
        beats.push(at("not a time"));
        for logged in signs {
            for beat in &beats {
                let c = claim(minute, logged);
                let state = |t: i64| judge(&c, beat, &time::stamp(t)).state;
                let Some(turn) = turns_at(&c, beat, now) else {
                    // Past its end with every sign counted: it stays as it is for good.
                    for later in [1, 60_000, 700_000, 86_400_000] {
                        assert_eq!(state(ms(now)), state(ms(now) + later), "{logged} {beat:?}");
                    }
                    continue;
                };
                assert!(turn > ms(now), "{logged} {beat:?}");
                let before = state(turn - 1);
                assert_eq!(state(ms(now)), before, "{logged} {beat:?}");
                let starts_counting = [
                    Some(ms(logged)),
                    time::millis(match beat {
                        Heartbeat::At(a) => a,
                        Heartbeat::Unknown => "",
                    }),
                ]
                .into_iter()
                .flatten()
                .any(|t| t - i64::from(MAX_AHEAD) * SECOND == turn);
                assert!(
                    state(turn) != before || starts_counting,
                    "{logged} {beat:?}: nothing turns at {}",
                    time::stamp(turn)
                );
            }
        }
        assert_eq!(turns_at(&claim(None, now), &at(now), now), None);
        assert_eq!(turns_at(&claim(minute, now), &at(now), "now"), None);
        // Live at 11:59:40, quiet from a millisecond past 12:00:10, expired at 12:00:40.
        let c = claim(minute, "2026-12-01T11:59:40.000Z");
        let quiet = turns_at(&c, &Heartbeat::Unknown, now).unwrap();
        assert_eq!(time::stamp(quiet), "2026-12-01T12:00:10.001Z");
        let end = turns_at(&c, &Heartbeat::Unknown, &time::stamp(quiet)).unwrap();
        assert_eq!(time::stamp(end), "2026-12-01T12:00:40.000Z");
    }

    #[test]
    fn a_claim_without_a_lease_never_expires() {
        let got = judge(
            &claim(None, "2020-01-01T00:00:00.000Z"),
            &Heartbeat::Unknown,
            NOW,
        );
        assert_eq!(got.state, Liveness::Unleased);
        assert_eq!(got.lease_end, None);
        assert_eq!(got.last_sign.as_deref(), Some("2020-01-01T00:00:00.000Z"));
        let bad_now = judge(&claim(None, NOW), &Heartbeat::Unknown, "now");
        assert_eq!(bad_now.state, Liveness::Unleased);
        let leased_bad_now = judge(&claim(Some(60), NOW), &at(NOW), "now");
        assert_eq!(leased_bad_now.state, Liveness::Unknown);
    }

    #[test]
    fn signs_know_only_the_seats_given() {
        let signs = Signs::none().with("huey", NOW);
        assert_eq!(signs.heartbeat("huey"), at(NOW));
        assert_eq!(signs.heartbeat("louie"), Heartbeat::Unknown);
        assert_eq!(Signs::none().heartbeat("huey"), Heartbeat::Unknown);
        let json = serde_json::to_string(&signs).unwrap();
        assert_eq!(json, r#"{"huey":"2026-12-01T12:00:00.000Z"}"#);
        assert_eq!(serde_json::from_str::<Signs>(&json).unwrap(), signs);
    }
}
