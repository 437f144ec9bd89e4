# 時計の言葉（秒読み、カナダ式、一時停止）、結果と終局の理由。

clock-page-title = tengen 対局時計
clock-black = 黒
clock-white = 白
clock-black-alt = 黒の時計
clock-white-alt = 白の時計
clock-periods = 秒読み残り{ $n }回
clock-periods-one = 秒読み残り1回
clock-stones = 残り{ $n }手
clock-stones-one = 残り1手
clock-paused = 一時停止中
clock-waiting-arbiter = 審判を待っています
clock-period-used = 秒読みを1回使用
clock-period-used-left = 秒読みを1回使用、残り{ $n }回
clock-seconds = { $s }秒
clock-counting = 秒読み { $s }
clock-counting-last = 秒読み { $s }（最後の1回）
clock-none = 時計なし
clock-sudden-death = { $main }、切れ負け
clock-byoyomi = { $main } + 秒読み { $n } × { $period }
clock-canadian = { $main } + カナダ式 { $period }で{ $n }手
clock-fischer = { $main }、一手ごとに{ $inc }加算（フィッシャー）
clock-ms = { $n }ミリ秒
clock-s = { $n }秒
clock-min = { $n }分
clock-h = { $n }時間

## 結果と終局の理由

result-draw = 引き分け（0）
result-void = 無勝負（Void）
result-unknown = 結果不明（?）
result-resign = { $w }の中押し勝ち（{ $r }）
result-time = { $w }の時間切れ勝ち（{ $r }）
result-forfeit = { $w }の不戦勝（{ $r }）
result-points = { $w }の{ $n }目勝ち（{ $r }）
result-win = { $w }の勝ち（{ $r }）
reason-count = 計算
reason-resignation = 投了
reason-time = 時間切れ
reason-warnings = 警告二回
reason-arbiter = 審判の裁定

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
face-move = { $n }手目
face-move-label = 手数
face-sudden-death = 切れ負け
face-fischer = 一手ごとに+{ $inc }
face-fischer-short = 一手+{ $inc }
face-byoyomi-main = 秒読み{ $n }×{ $period }
face-byoyomi-short = { $n }×{ $period }
face-no-period = 秒読みなし
face-last-period = 最後の秒読み
face-periods = 秒読み残り{ $n }回
face-canadian-main = カナダ式{ $period }で{ $n }手
face-canadian-short = { $period }で{ $n }手
face-stones-one = 残り1手
face-stones = 残り{ $n }手
face-time-out = 時間切れ
face-fix = 復元
face-game-over = 終局
face-win = { $w }の勝ち
face-win-resign = { $w }の中押し勝ち
face-win-time = { $w }の時間切れ勝ち
face-win-forfeit = { $w }の不戦勝
face-win-by = { $w }の{ $margin }目勝ち
face-draw = 持碁
face-void = 無勝負
face-no-game = 対局なし
face-board = 碁盤
face-h = { $n }時間
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }ミリ秒
