# 時計の言葉（秒読み、カナダ式、一時停止）、結果と終局の理由。

clock-page-title = tengen 対局時計
clock-black = 黒
clock-white = 白
clock-black-alt = 黒の時計
clock-white-alt = 白の時計
clock-periods = 秒読み残り{ $n }回
clock-periods-one = 秒読み残り1回
clock-stones = この時間帯に残り{ $n }手
clock-stones-one = この時間帯に残り1手
clock-paused = 一時停止中
clock-waiting-arbiter = 審判を待っています
clock-period-used = 秒読みを1回使用
clock-period-used-left = 秒読みを1回使用、残り{ $n }回
clock-seconds = { $s }秒
clock-counting = 秒読み { $s }
clock-counting-last = 秒読み { $s }（最後の1回）
clock-none = 時計なし
clock-sudden-death = 持ち時間{ $main }、切れ負け
clock-byoyomi = 持ち時間{ $main }、秒読み{ $period }{ $n }回
clock-canadian = 持ち時間{ $main }、カナダ式（{ $period }で{ $n }手）
clock-fischer = 持ち時間{ $main }、1手ごとに{ $inc }加算（フィッシャー）
clock-ms = { $n }ミリ秒
clock-s = { $n }秒
clock-min = { $n }分
clock-h = { $n }時間

## 結果と終局の理由。差は目で言う（`$n` は目数の整数部分、半は「目半」「半目」）。

result-draw = 持碁（0）
result-void = 無勝負（Void）
result-unknown = 結果不明（?）
result-resign = { $w }の中押し勝ち（{ $r }）
result-time = { $w }の時間切れ勝ち（{ $r }）
result-forfeit = { $w }の反則勝ち（{ $r }）
result-points = { $w }の{ $margin }勝ち（{ $r }）
result-win = { $w }の勝ち（{ $r }）
result-margin = { $n }目
result-margin-one = { $n }目
result-margin-half = { $n }目半
result-margin-half-only = 半目
reason-count = 計算
reason-resignation = 投了
reason-time = 時間切れ
reason-warnings = 警告2回による負け
reason-arbiter = 審判の裁定
reason-absent = 遅刻による負け（第22条）

## 対局者の表示器（128x64 ピクセル、`table/`）の短い言葉。その場所に収まること。

face-call-arbiter = 審判を呼んでください
face-paused = 一時停止
face-counting = 計算中
face-black = 黒
face-white = 白
face-vs = 相手 { $name }
face-waiting-arbiter = 審判の合図を
face-waiting-arbiter-2 = お待ちください
face-starts-black = 黒が時計を押して
face-starts-white = 白が時計を押して
face-starts-2 = 対局開始
face-no-clock = 時計なし
face-move = { $n }手まで
face-move-label = 手数
face-sudden-death = 切れ負け
face-fischer = 1手ごとに+{ $inc }
face-fischer-short = 1手+{ $inc }
face-byoyomi-main = 秒読み{ $period }{ $n }回
face-byoyomi-short = { $n }×{ $period }
face-no-period = 秒読みなし
face-last-period = 最後の秒読み
face-periods = 秒読み残り{ $n }回
face-canadian-main = カナダ式{ $period }で{ $n }手
face-canadian-short = { $period }で{ $n }手
face-stones-one = 残り1手
face-stones = 残り{ $n }手
face-time-out = 時間切れ
face-fix = 直す
face-game-over = 終局
face-win = { $w }の勝ち
face-win-resign = { $w }の中押し勝ち
face-win-time = { $w }の時間切れ勝ち
face-win-forfeit = { $w }の反則勝ち
face-win-by = { $w }の{ $margin }勝ち
face-margin = { $n }目
face-margin-one = { $n }目
face-margin-half = { $n }目半
face-margin-half-only = 半目
face-draw = 持碁
face-void = 無勝負
face-no-game = 対局なし
face-board = 碁盤
face-h = { $n }時間
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }ミリ秒

## 対局者の着席と遅刻（第22条）：`$n` 席番号、`$late` 遅刻した時間、`$taken` 差し引かれた時間の計（`7:12`、`14:24`）。
face-table = { $n }番席
face-check-in = 着席したら
face-check-in-2 = 自分の時計を押す
face-checked-in = 着席済み
face-away = 着席したら時計を押す
face-late = 遅刻{ $late }
face-late-taken = 計{ $taken }差し引き
