# Pages: the words of the board's live page, the hall's overview, login, rounds archive and
# commentary pages. `{ $name }` placeables are filled by the server or by the page's `t()`.

lang-switch-label = Language
side-black = Black
side-white = White
rank-dan = { $n }d
rank-kyu = { $n }k
rank-pro = { $n }p
rank-numerals = 1 2 3 4 5 6 7 8 9
status-connecting = connecting
status-online = online
status-offline = offline
status-restoring = restarting
status-reconnecting = reconnecting
status-unknown = unknown
dash-none = none

## The board's live page (net/src/live_view/page.html)

live-board-aria = Go board
live-nav-first = first (Home)
live-nav-back = back (←)
live-nav-forward = forward (→)
live-nav-last = last (End)
live-nav-live-title = follow new moves
live-nav-live = live
live-move-aria = move
live-move-placeholder = move
live-jump-aria = jump to move
live-go = go
live-try-title = try moves from the shown position; the game is not touched
live-try = try moves
live-back-to-game = back to game
live-move-numbers = move numbers
live-faces = What the players see
live-face-black = Black's display
live-face-white = White's display
live-clock-link = The players' clock for a tablet at this table:
live-open = open
live-info-event = Event
live-info-round = Round
live-info-table = Table
live-info-time = Time
live-info-komi = Komi
live-info-handicap = Handicap
live-info-captures = Captures
live-analysis = Engine analysis
live-analysis-what = score lead over the moves, candidates on the board
live-graph-aria = score lead over the moves
live-moves = Moves
live-captured = { $n } captured
live-warnings = { $n } warnings
live-warnings-one = 1 warning
live-move-of = move { $n } of { $total }
live-variation = variation from move { $from }: { $moves } · { $side } to play
live-click-to-place = click to place
live-round = round { $round }
live-table = table { $table }
live-komi = komi { $komi }
live-handicap = handicap { $n }
live-captures = Black { $b }, White { $w }
live-result = Result: { $result }
live-result-reason = Result: { $result } ({ $reason })
live-counting = Counting
live-summary = Move { $n }: { $color } { $point }
live-stone-black = B
live-stone-white = W
live-pass = pass
live-no-moves = No moves yet
live-after-move = After move { $n }: { $lead }
live-even = even
live-leads = { $side } leads by { $points }
live-best = best: { $moves }
live-no-estimate = After move { $n }: no estimate (yet)
live-jump-invalid = a move number, 0 to { $total }
live-arbiters-heading = Arbiters – live
live-arbiters-clock-note = It shows the live time and move number: under a broadcast delay, give it to that tablet only.

## The hall's overview (hall/src/public/overview.html)

overview-title = tengen hall
overview-title-live = tengen hall: arbiters, live
overview-boards = { $n } boards
overview-silent-count = { $n } silent
overview-table = table { $table }
overview-round = round { $round }
overview-move = move { $n }
overview-result = Result: { $result }
overview-alerts = { $n } open alerts
overview-alerts-one = 1 open alert
overview-silent-s = silent { $n } s
overview-silent-min = silent { $n } min
overview-silent-h = silent { $h } h
overview-silent-h-min = silent { $h } h { $m } min
overview-no-broker = No broker connection: the boards may be out of date
overview-no-broker-why = No broker connection ({ $broker }): { $error }

## Login (hall/src/console/login.html)

login-title = tengen hall: arbiters' login
login-heading = Arbiters' console
login-name = Name
login-password = Password or token
login-submit = Log in
login-wrong = Wrong name or password.
login-stopping = The hall is stopping.
login-too-many = Too many failed logins: try again in { $s } s.

## The rounds archive (/rounds)

rounds-title = Rounds
rounds-none = No rounds yet.
rounds-round = Round
rounds-games = Games
rounds-finished = Finished
rounds-records = Records
rounds-all-boards = All boards

## Commentary pages (/commentary)

commentary-heading = Commentary – { $what }
commentary-live-closed = live (closed room)
commentary-delayed = delayed by { $delay }
commentary-live-public = live (no broadcast delay)
commentary-note-live-ahead = Every move as it is played, ahead of the broadcast: keep it in this room until the public pages show it.
commentary-note-live = Every move as it is played, as the public sees it.
commentary-note-delayed = As the public sees the game: the last { $delay } are not shown yet.
commentary-analysis-note = The engine sees only what the public has seen, { $delay } behind: the newest moves have no estimate yet.
delay-moves = { $n } moves
delay-moves-one = 1 move
delay-min = { $n } min
delay-s = { $n } s

## The incident log of a table (issue 31), arbiters only, printable for an appeals committee.

incident-title = Incident log
incident-round-title = Incident log, round { $round }
incident-game = Table { $table } · round { $round } · board { $board } · game { $game }
incident-players = Black: { $black } · White: { $white }
incident-void-mark = VOID
incident-board-did = the board
incident-th-time = Time
incident-th-move = Move
incident-th-what = What happened
incident-th-by = Who
incident-none = Nothing to report: no alert, warning or arbiter's action in this game.
incident-no-games = The hall holds no game of this round.
incident-print = Print
incident-made = Made from the boards' own records and the arbiters' actions at the hall. Times are this device's local time.
incident-why = Why: { $reason }
incident-alert = Alert: { $what }
incident-restored-pending = { $what }: put right on the board; the warning is pending, for an arbiter to decide
incident-restored = { $what }: put right on the board
incident-confirmed = { $what }: confirmed
incident-dismissed = { $what }: dismissed, no violation
incident-warning = Warning to { $side } ({ $article }), { $n } in this game
incident-warning-given = Warning to { $side } ({ $article }) on the arbiter's own finding, { $n } in this game
incident-withdrawn = A warning of { $side }'s withdrawn, { $n } left
incident-paused = Clocks stopped (Black { $b }, White { $w })
incident-resumed = Clocks started again (Black { $b }, White { $w })
incident-clock-set = Clock set: Black { $b }, White { $w }
incident-restarted = The board restarted; off since { $since } UTC, its clocks stopped as they stood
incident-restarted-unknown = The board restarted; its clocks stopped as they stood
incident-late = { $side } arrived { $late } late: { $taken } taken from the time limit in all, { $deducted } of it on arrival
incident-result = Game over: { $result }, { $how }
incident-reopened = Game reopened (it was { $result })
incident-voided = Game voided: no result, out of every public view
incident-confirm-result = Result confirmed for the results file: { $result }
incident-correct-result = Confirmed result corrected: { $from } → { $to }
commentary-note-over = The game is over: every move is shown.
