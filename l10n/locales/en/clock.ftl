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
clock-counting = counting { $s }
clock-counting-last = counting { $s } (last period)
clock-none = no clock
clock-sudden-death = { $main } sudden death
clock-byoyomi = { $main } + byo-yomi { $n } × { $period }
clock-canadian = { $main } + Canadian { $n } stones / { $period }
clock-fischer = { $main } + { $inc } a move (Fischer)
clock-ms = { $n } ms
clock-s = { $n } s
clock-min = { $n } min
clock-h = { $n } h

## Results (`B+R`, `W+T`, `W+F`, `B+3.5`, `0`, `Void`) and why a game ended

result-draw = a draw (0)
result-void = no result (Void)
result-unknown = result unknown (?)
result-resign = { $w } wins by resignation ({ $r })
result-time = { $w } wins on time ({ $r })
result-forfeit = { $w } wins by forfeit ({ $r })
result-points = { $w } wins by { $n } points ({ $r })
result-win = { $w } wins ({ $r })
reason-count = by count
reason-resignation = by resignation
reason-time = on time
reason-warnings = by warnings
reason-arbiter = by the arbiter
