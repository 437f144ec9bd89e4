# The clock's words (byo-yomi periods, Canadian stones, calls, pause), results and reasons.

clock-page-title = tengen clock
clock-black = BLACK
clock-white = WHITE
clock-black-alt = Black's clock
clock-white-alt = White's clock
clock-periods = { $n } periods
clock-periods-one = 1 period
clock-stones = { $n } stones
clock-stones-one = 1 stone
clock-paused = paused
clock-waiting-arbiter = waiting for the arbiter
clock-period-used = period used
clock-period-used-left = period used, { $n } left
clock-seconds = { $s } seconds
clock-counting = byo-yomi { $s }
clock-counting-last = byo-yomi { $s } (last period)
clock-none = no clock
clock-sudden-death = { $main } sudden death
clock-byoyomi = { $main } + byo-yomi { $n } × { $period }
clock-canadian = { $main } + Canadian { $n } stones / { $period }
clock-fischer = { $main } + { $inc } a move (Fischer)
clock-ms = { $n } ms
clock-s = { $n } s
clock-min = { $n } min
clock-h = { $n } h

## Results (`B+R`, `W+T`, `W+F`, `B+3.5`, `0`, `Void`) and why a game ended. A margin (or a komi)
## is said with `result-margin` (`face-margin` on the displays): `$n` the whole points, `$s`
## the stones (`8¾`); a language says it in its unit, with either or both (Chinese in stones,
## Art. 9 and 11; Japanese in 目 with 半).

result-draw = a draw (0)
result-void = no result (Void)
result-unknown = result unknown (?)
result-resign = { $w } wins by resignation ({ $r })
result-time = { $w } wins on time ({ $r })
result-forfeit = { $w } wins by forfeit ({ $r })
result-points = { $w } wins by { $margin } ({ $r })
result-win = { $w } wins ({ $r })
result-margin = { $n } points
result-margin-one = { $n } point
result-margin-half = { $n }.5 points
result-margin-half-only = half a point
reason-count = by count
reason-resignation = by resignation
reason-time = on time
reason-warnings = by warnings
reason-arbiter = by the arbiter
reason-absent = by default (not seated, Art. 22)

## The players' displays (128x64 pixels, `table/`): short words that fit their place on
## the face. `$n` a number, `$period` and `$inc` a duration (`face-s`...), `$w` a side
## (`face-black`, `face-white`), `$margin` a `face-margin` message, `$name` a player.

face-call-arbiter = ! CALL ARBITER !
face-paused = PAUSED
face-counting = COUNTING
face-black = Black
face-white = White
face-vs = vs { $name }
face-waiting-arbiter = Waiting for
face-waiting-arbiter-2 = the arbiter
face-starts-black = Black starts
face-starts-white = White starts
face-starts-2 = the clock
face-no-clock = No clock
face-move = Move { $n }
face-move-label = Move
face-sudden-death = Sudden death
face-fischer = +{ $inc } a move
face-fischer-short = +{ $inc }
face-byoyomi-main = then { $n }x{ $period }
face-byoyomi-short = { $n }x{ $period }
face-no-period = No period
face-last-period = LAST PERIOD
face-periods = { $n } periods
face-canadian-main = then { $n }/{ $period }
face-canadian-short = { $n }/{ $period }
face-stones-one = 1 stone
face-stones = { $n } stones
face-time-out = TIME OUT
face-fix = Fix
face-game-over = Game over
face-win = { $w } wins
face-win-resign = { $w } wins (resign)
face-win-time = { $w } wins on time
face-win-forfeit = { $w } wins (forfeit)
face-win-by = { $w } wins by { $margin }
face-margin = { $n }
face-margin-one = { $n }
face-margin-half = { $n }.5
face-margin-half-only = 0.5
face-draw = Draw
face-void = No result
face-no-game = no game
face-board = board
face-h = { $n }h
face-m = { $n }m
face-s = { $n }s
face-ms = { $n }ms

## The players' check-in and late arrival (Art. 22): `$n` the table, `$late` how late and
## `$taken` all it cost (`7:12`, `14:24`).
face-table = Table { $n }
face-check-in = Press your clock
face-check-in-2 = when seated
face-checked-in = SEATED
face-away = Seated? Press clock
face-late = Late { $late }
face-late-taken = { $taken } taken
