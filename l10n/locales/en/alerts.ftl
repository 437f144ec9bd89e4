# Alerts: for each code of `AlertCode` (and the hall's `board_offline`), a short title and
# the sentence the arbiter reads: the article and what to check. The events keep their
# code and English `message`; the page picks these by code.

alert-article = Art. { $a }
alert-article-clause = Art. { $a }.{ $c }
alert-uncaptured_stones = Captured stones left on the board
alert-uncaptured_stones-check = Art. 18.2 and 22.6: stones without liberties were not (all) taken off before the clock was pressed. Check which stones have no liberties: they come off, and the player who left them gets one warning.
alert-wrong_capture = Stones taken off that were not captured
alert-wrong_capture-check = Art. 18.1: stones that still had liberties were taken off. Put them back where they were; the player who took them gets one warning.
alert-stone_moved = A stone on the board moved
alert-stone_moved-check = Art. 17.5: a stone already on the board is found moved. Put it back where it was, as both players agree; if it was moved on purpose, the mover loses.
alert-takeback = Takeback
alert-takeback-check = Art. 17.3: a stone that had left the hand was picked up and played elsewhere. The claim counts only if the opponent raises it with the arbiter before their next move. The stone goes back where it was first played; one warning.
alert-double_move = Two moves in a row
alert-double_move-check = Art. 17.2: one side played twice in a row without the other passing. The second move is void; one warning.
alert-wrong_color = Wrong colours
alert-wrong_color-check = Art. 17.1: the players took the wrong colours. Correct it up to and including move 10; after move 10 it is never corrected.
alert-suicide = Stone on a forbidden point (suicide)
alert-suicide-check = Art. 19: the stone was placed on a forbidden point (Art. 5: it has no liberty at once and captures nothing). The move is void and the turn is forfeited.
alert-ko = Ko taken back at once
alert-ko-check = Art. 18.3: the ko was retaken at once without a ko threat. The move is void, the turn forfeited, and one warning.
alert-superko = Whole-board repetition
alert-superko-check = Art. 20: a whole-board repetition (Art. 6: the move may not make the opponent face a position seen before) is forbidden in principle. Check the repetition; for triple ko, quadruple ko, eternal life and similar rare cycles the event's rules may say no result, draw or replay.
alert-clock_before_move = Clock pressed before the move
alert-clock_before_move-check = Art. 17.4: the clock was pressed before the stone was placed. One warning; the clock readings are not changed.
alert-board_disturbed = Board knocked
alert-board_disturbed-check = Art. 17.6: the position was scattered. Replay it from the board's record if both players agree.
alert-time_expired = Time ran out
alert-time_expired-check = Art. 22.5: the time ran out in the last byo-yomi minute. In principle the game is lost; on request the turn may instead be forfeited (a pass), with the same byo-yomi.
alert-time_expired-check-12-4 = Art. 12.4: under sudden death the game must be finished within the base time; a time-out loses. There is no byo-yomi, so no turn can be forfeited instead (Art. 22.5 is for byo-yomi).
alert-time_expired-check-12-5 = Art. 12.5: the moves of the period were not all played within its time. Art. 22.5 (a forfeited turn instead of the loss) is for byo-yomi only: in principle the game is lost on time.
alert-mismatch = Board differs from the record
alert-mismatch-check = The stones on the board differ from the record in a way no article names. Compare the board with the record and restore it.
alert-board_restarted = Board restarted during the game
alert-board_restarted-check = Art. 22.8: the board was off during the game; the clocks came back stopped as they stood. Check both players' times, then resume the clocks; one side's time is changed only with the chief arbiter's consent.
alert-board_offline = Board offline
alert-board_offline-check = The hall's server no longer hears this board. Go to the table: check its power and network; the players' clock may have stopped.
alert-storage_low = Board's storage almost full
alert-storage_low-check = The board still records, but not for long. Free space on its storage.
alert-storage_full = Board's storage full
alert-storage_full-check = The board could not write an event; the game goes on and events wait in memory. Free space on its storage now.

## Hardware trouble

fault-link_lost = sensor link lost
fault-stuck = sensor stuck
fault-noisy = noisy sensor
fault-wrong_size = scans of another board size
fault-board_offline = board offline
fault-storage_low = board's storage almost full
fault-storage_full = board's storage full
alert-absent = Player not seated
alert-absent-check = Art. 22.1: the player was late for the start of play by the limit (1 hour, inclusive) or more: the game is lost. Record the win by default, or dismiss if the player was there.
alert-absent-check-22-2 = Art. 22.2: venue and lodging together, the player was late for the start of play by the limit (15 minutes) or more: the game is lost. Record the win by default, or dismiss if the player was there.
alert-absent-check-22-3 = Art. 22.3: both players late, each is dealt with on their own, down to both losing. Neither is seated at the limit: record both lose, or dismiss if they were there.
alert-absent-check-22-4 = Art. 22.4: in a quick game the absent player's clock counted byo-yomi; it ran out before they were seated: they lose their place in the game. Record the win by default, or dismiss if the player was there.
