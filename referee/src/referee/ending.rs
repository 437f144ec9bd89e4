//! How a game ends: warnings (Art. 24), the count (Art. 9, 11), resignation, and results
//! set by the arbiter.

use tengen_protocol::event::{AlertCode, EndReason, GameEnd};
use tengen_protocol::view::Phase;
use tengen_protocol::Event;
use tengen_rules::scoring::{score, ScoreRules};
use tengen_rules::{Color, Point};

use super::Referee;

impl Referee {
    /// Gives `color` a warning for `code` (its `warning` event); returns the end of the
    /// game, to emit once the caller has said what else goes with the warning, when it is
    /// that side's second warning.
    pub(super) fn give_warning(
        &mut self,
        out: &mut Vec<Event>,
        color: Color,
        code: AlertCode,
    ) -> Option<Event> {
        let count = self.view.warnings().get(color) + 1;
        self.emit(
            out,
            Event::Warning {
                color,
                article: code.article().to_string(),
                count,
            },
        );
        (count >= 2 && self.phase() != Phase::Over).then(|| {
            Event::GameOver(GameEnd::uncounted(
                format!("{}+F", color.opponent().letter()),
                EndReason::Warnings,
            ))
        })
    }

    /// `color` resigns (the gesture confirmed by the press, or the arbiter's command).
    pub(super) fn resign(&mut self, out: &mut Vec<Event>, color: Color) {
        self.resign_proposal = None;
        self.emit(
            out,
            Event::GameOver(GameEnd::uncounted(
                format!("{}+R", color.opponent().letter()),
                EndReason::Resignation,
            )),
        );
    }

    /// The stones of the record that are off the physical board: the dead stones lifted.
    fn dead_stones(&self) -> Vec<Point> {
        let mut dead: Vec<Point> = self
            .view
            .game()
            .map(|g| g.board().stones())
            .unwrap_or_default()
            .into_iter()
            .map(|(p, _)| p)
            .filter(|&p| self.physical_at(p).is_none())
            .collect();
        dead.sort();
        dead
    }

    /// Both sides confirmed the end: counts the position without the lifted stones.
    pub(super) fn finish_count(&mut self, out: &mut Vec<Event>) {
        let dead = self.dead_stones();
        let setup = self.view.setup().unwrap_or(&self.settings.game);
        let rules = ScoreRules {
            komi_points: setup.komi,
            handicap: setup.handicap,
            warnings: [
                self.view.warnings().get(Color::Black),
                self.view.warnings().get(Color::White),
            ],
        };
        let counted = self.view.game().map(|g| score(g.board(), &dead, &rules));
        self.emit(out, Event::Counting { dead });
        let end = match counted {
            Some(Ok(s)) => GameEnd {
                result: s.result,
                reason: EndReason::Count,
                black_area: Some(s.black_area),
                white_area: Some(s.white_area),
                dame: Some(s.dame),
                margin_stones: Some(s.margin_stones),
                margin_points: Some(s.margin_points),
            },
            _ => GameEnd::uncounted("Void", EndReason::Count),
        };
        self.emit(out, Event::GameOver(end));
    }
}
