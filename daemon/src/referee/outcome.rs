//! How a game ends: warnings (Art. 24), the count (Art. 9, 11), resignation, and results
//! set by the arbiter.

use tengen_hal::Millis;
use tengen_rules::scoring::{score, ScoreRules};
use tengen_rules::{Color, Point};

use super::{Phase, Referee};
use crate::event::{AlertCode, Event};

impl Referee {
    /// Gives `color` a warning for `code`; returns the `warning` event, and the end of the
    /// game when it is that side's second warning.
    pub(super) fn give_warning(
        &mut self,
        color: Color,
        code: AlertCode,
    ) -> (Vec<Event>, Vec<Event>) {
        self.warnings[color.index()] += 1;
        let count = self.warnings[color.index()];
        let warning = vec![Event::Warning {
            color,
            article: code.article().to_string(),
            count,
        }];
        let over = if count >= 2 && self.phase != Phase::Over {
            self.game_over(format!("{}+F", color.opponent().letter()), "warnings")
        } else {
            Vec::new()
        };
        (warning, over)
    }

    /// Ends the game without a count.
    pub(super) fn game_over(&mut self, result: String, reason: &str) -> Vec<Event> {
        self.phase = Phase::Over;
        self.result = Some(result.clone());
        if let Some(clock) = self.clock.as_mut() {
            clock.pause(self.now);
        }
        vec![Event::GameOver {
            result,
            reason: reason.to_string(),
            black_area: None,
            white_area: None,
            dame: None,
            margin_stones: None,
            margin_points: None,
        }]
    }

    /// `color` resigns (the gesture confirmed by the press, or the arbiter's command).
    pub(super) fn resign(&mut self, color: Color, now: Millis) -> Vec<Event> {
        self.now = now;
        self.resign_proposal = None;
        self.game_over(format!("{}+R", color.opponent().letter()), "resignation")
    }

    /// The stones of the record that are off the physical board: the dead stones lifted.
    fn dead_stones(&self) -> Vec<Point> {
        let mut dead: Vec<Point> = self
            .game
            .board()
            .stones()
            .into_iter()
            .map(|(p, _)| p)
            .filter(|&p| self.physical_at(p).is_none())
            .collect();
        dead.sort();
        dead
    }

    /// Both sides confirmed the end: counts the position without the lifted stones.
    pub(super) fn finish_count(&mut self) -> Vec<Event> {
        let dead = self.dead_stones();
        let rules = ScoreRules {
            komi_points: self.settings.komi,
            handicap: self.settings.handicap,
            warnings: self.warnings,
        };
        let mut events = vec![Event::Counting {
            dead: tengen_rules::point::sorted_gtp(dead.iter().copied()),
        }];
        match score(self.game.board(), &dead, &rules) {
            Ok(s) => {
                self.phase = Phase::Over;
                self.result = Some(s.result.clone());
                if let Some(clock) = self.clock.as_mut() {
                    clock.pause(self.now);
                }
                events.push(Event::GameOver {
                    result: s.result,
                    reason: "count".to_string(),
                    black_area: Some(s.black_area),
                    white_area: Some(s.white_area),
                    dame: Some(s.dame),
                    margin_stones: Some(s.margin_stones),
                    margin_points: Some(s.margin_points),
                });
            }
            Err(_) => events.extend(self.game_over("Void".to_string(), "count")),
        }
        events
    }
}
