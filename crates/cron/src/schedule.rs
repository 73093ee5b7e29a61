//! Cron expressions: parsing (the `croner` crate), the next time one matches, and a reading of it
//! in words.
//!
//! Claude Code's CronCreate takes the standard five fields, `M H DoM Mon DoW`, in the user's
//! local time zone; an expression with another number of fields (or a `@daily`-style alias) is
//! refused, as is one that matches no date within a year (`0 0 30 2 *`).

use chrono::{DateTime, FixedOffset, Local, LocalResult, Offset as _, TimeZone, Utc};
use croner::Cron;

/// How far ahead a match is looked for: one year (366 days, for leap years), in milliseconds.
pub const SEARCH_HORIZON_MS: i64 = 366 * 24 * 60 * 60 * 1000;

/// The time zone the fields are read in: the machine's local zone (what Claude Code uses), or a
/// fixed offset (for tests that must not depend on where they run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Zone {
    /// The machine's local time zone, daylight saving included.
    #[default]
    Local,
    /// A fixed offset from UTC.
    Fixed(FixedOffset),
}

impl Zone {
    /// UTC as a fixed zone.
    pub fn utc() -> Self {
        Self::Fixed(Utc.fix())
    }

    /// `ms` (since the Unix epoch) as a date and time in this zone, `YYYY-MM-DD HH:MM`, with
    /// the offset (`+01:00`).
    pub fn format(self, ms: i64) -> String {
        match self {
            Self::Local => at(Local, ms).map(|time| time.format("%Y-%m-%d %H:%M %:z").to_string()),
            Self::Fixed(offset) => at(offset, ms).map(|time| time.format("%Y-%m-%d %H:%M %:z").to_string()),
        }
        .unwrap_or_else(|| ms.to_string())
    }
}

fn at<Z: TimeZone>(zone: Z, ms: i64) -> Option<DateTime<Z>> {
    match zone.timestamp_millis_opt(ms) {
        LocalResult::Single(time) | LocalResult::Ambiguous(time, _) => Some(time),
        LocalResult::None => None,
    }
}

/// Why an expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Not five fields, or a field `croner` cannot read (Claude Code's validation code 1).
    #[error("Invalid cron expression '{0}'. Expected 5 fields: M H DoM Mon DoW.")]
    Invalid(String),
    /// It matches no date within a year (code 2).
    #[error("Cron expression '{0}' does not match any calendar date in the next year.")]
    NoMatch(String),
}

impl ScheduleError {
    /// Claude Code's `errorCode` for it: 1 invalid, 2 no match within a year.
    pub fn code(&self) -> i32 {
        match self {
            Self::Invalid(_) => 1,
            Self::NoMatch(_) => 2,
        }
    }
}

/// A parsed five-field expression.
#[derive(Debug, Clone)]
pub struct Schedule {
    expression: String,
    cron: Cron,
}

impl Schedule {
    /// Parses `expression` (five whitespace-separated fields; names such as `MON` and `JAN`,
    /// ranges, lists and steps allowed).
    ///
    /// # Errors
    /// [`ScheduleError::Invalid`] when it has another number of fields or `croner` refuses it.
    pub fn parse(expression: &str) -> Result<Self, ScheduleError> {
        let invalid = || ScheduleError::Invalid(expression.to_owned());
        if expression.split_whitespace().count() != 5 {
            return Err(invalid());
        }
        let cron = expression.parse::<Cron>().map_err(|_| invalid())?;
        Ok(Self { expression: expression.to_owned(), cron })
    }

    /// Parses `expression` and checks that it matches within a year of `now_ms`.
    ///
    /// # Errors
    /// [`ScheduleError::Invalid`], or [`ScheduleError::NoMatch`] when nothing matches in the
    /// next year.
    pub fn parse_matching(expression: &str, now_ms: i64, zone: Zone) -> Result<Self, ScheduleError> {
        let schedule = Self::parse(expression)?;
        if schedule.next_after(now_ms, zone).is_none() {
            return Err(ScheduleError::NoMatch(expression.to_owned()));
        }
        Ok(schedule)
    }

    /// The expression as given.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The first matching minute strictly after `after_ms`, in ms since the Unix epoch, if one
    /// comes within [`SEARCH_HORIZON_MS`].
    pub fn next_after(&self, after_ms: i64, zone: Zone) -> Option<i64> {
        let found = match zone {
            Zone::Local => at(Local, after_ms)
                .and_then(|from| self.cron.find_next_occurrence(&from, false).ok())
                .map(|time| time.timestamp_millis()),
            Zone::Fixed(offset) => at(offset, after_ms)
                .and_then(|from| self.cron.find_next_occurrence(&from, false).ok())
                .map(|time| time.timestamp_millis()),
        }?;
        (found > after_ms && found - after_ms <= SEARCH_HORIZON_MS).then_some(found)
    }

    /// The schedule in words (`every 5 minutes`, `daily at 09:00`, `weekdays at 09:00`,
    /// `on Feb 28 at 14:30`); an expression with no simple reading is quoted as it is.
    pub fn human(&self) -> String {
        human(&self.expression)
    }
}

const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

fn number(field: &str, max: u32) -> Option<u32> {
    field.parse::<u32>().ok().filter(|n| *n <= max)
}

/// A plain reading of the common shapes of a five-field expression (see [`Schedule::human`]).
pub fn human(expression: &str) -> String {
    let fields: Vec<&str> = expression.split_whitespace().collect();
    let quoted = || format!("cron '{expression}'");
    let [minute, hour, dom, month, dow] = fields[..] else { return quoted() };
    let any = |field: &str| field == "*";
    let time = || Some(format!("{:02}:{:02}", number(hour, 23)?, number(minute, 59)?));
    let every = |field: &str, unit: &str| {
        let step = number(field.strip_prefix("*/")?, 59)?;
        Some(if step == 1 { format!("every {unit}") } else { format!("every {step} {unit}s") })
    };
    let reading = match (any(dom), any(month), any(dow)) {
        (true, true, true) if any(minute) && any(hour) => Some("every minute".to_owned()),
        (true, true, true) if any(hour) => {
            every(minute, "minute").or_else(|| number(minute, 59).map(|m| format!("every hour at :{m:02}")))
        }
        (true, true, true) if number(minute, 59) == Some(0) && hour.starts_with("*/") => every(hour, "hour"),
        (true, true, true) => time().map(|time| format!("daily at {time}")),
        (true, true, false) => {
            let days = match dow {
                "1-5" | "MON-FRI" | "mon-fri" => Some("weekdays".to_owned()),
                "0,6" | "6,0" | "SAT,SUN" | "sat,sun" => Some("weekends".to_owned()),
                day => number(day, 7).map(|d| format!("every {}", WEEKDAYS[(d % 7) as usize])),
            };
            days.zip(time()).map(|(days, time)| format!("{days} at {time}"))
        }
        (false, true, true) => {
            number(dom, 31).filter(|d| *d >= 1).zip(time()).map(|(d, time)| format!("monthly on day {d} at {time}"))
        }
        (false, false, true) => {
            let day = number(dom, 31).filter(|d| *d >= 1);
            let name = number(month, 12).filter(|m| *m >= 1).map(|m| MONTHS[(m - 1) as usize]);
            day.zip(name).zip(time()).map(|((d, name), time)| format!("on {name} {d} at {time}"))
        }
        _ => None,
    };
    reading.unwrap_or_else(quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEC_4_2026_0100_UTC: i64 = 1_796_346_000_000;

    #[test]
    fn five_fields_are_required() {
        for bad in ["", "* * * *", "0 0 * * * *", "@daily", "61 * * * *", "x y z w v"] {
            assert_eq!(Schedule::parse(bad).unwrap_err(), ScheduleError::Invalid(bad.into()), "{bad}");
        }
        assert_eq!(
            ScheduleError::Invalid("x".into()).to_string(),
            "Invalid cron expression 'x'. Expected 5 fields: M H DoM Mon DoW."
        );
    }

    #[test]
    fn the_next_match_is_strictly_later_and_within_a_year() {
        let every5 = Schedule::parse("*/5 * * * *").unwrap();
        assert_eq!(every5.next_after(DEC_4_2026_0100_UTC, Zone::utc()), Some(DEC_4_2026_0100_UTC + 5 * 60_000));
        assert_eq!(
            Schedule::parse_matching("0 0 30 2 *", DEC_4_2026_0100_UTC, Zone::utc()).unwrap_err(),
            ScheduleError::NoMatch("0 0 30 2 *".into())
        );
        let offset = Zone::Fixed(FixedOffset::east_opt(3600).unwrap());
        // 09:00 at UTC+1 is 08:00 UTC.
        let nine = Schedule::parse("0 9 * * *").unwrap();
        assert_eq!(nine.next_after(DEC_4_2026_0100_UTC, offset), Some(DEC_4_2026_0100_UTC + 7 * 3_600_000));
        assert_eq!(offset.format(DEC_4_2026_0100_UTC), "2026-12-04 02:00 +01:00");
    }

    #[test]
    fn common_shapes_read_in_words() {
        let cases = [
            ("* * * * *", "every minute"),
            ("*/5 * * * *", "every 5 minutes"),
            ("7 * * * *", "every hour at :07"),
            ("0 */2 * * *", "every 2 hours"),
            ("0 9 * * *", "daily at 09:00"),
            ("0 9 * * 1-5", "weekdays at 09:00"),
            ("30 8 * * 1", "every Monday at 08:30"),
            ("0 12 15 * *", "monthly on day 15 at 12:00"),
            ("30 14 28 2 *", "on Feb 28 at 14:30"),
            ("0 9 1-7 * 1", "cron '0 9 1-7 * 1'"),
        ];
        for (expression, words) in cases {
            assert_eq!(human(expression), words, "{expression}");
        }
    }
}
