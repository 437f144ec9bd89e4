# 棋鐘用語（讀秒、加拿大讀秒、暫停）、結果與終局原因。臺灣用語（棋鐘、費雪制、即時、伺服器）。

clock-page-title = tengen 棋鐘
clock-black = 黑方
clock-white = 白方
clock-black-alt = 黑方棋鐘
clock-white-alt = 白方棋鐘
clock-periods = 剩{ $n }次讀秒
clock-periods-one = 剩1次讀秒
clock-stones = 本時段還需下{ $n }手
clock-stones-one = 本時段還需下1手
clock-paused = 已暫停
clock-waiting-arbiter = 等待裁判
clock-period-used = 用去一次讀秒
clock-period-used-left = 用去一次讀秒，還剩{ $n }次
clock-seconds = { $s }秒
clock-counting = 讀秒 { $s }
clock-counting-last = 讀秒 { $s }（最後一次）
clock-none = 不計時
clock-sudden-death = 每方{ $main }，用完判負
clock-byoyomi = 每方{ $main }，讀秒{ $period }{ $n }次
clock-canadian = 每方{ $main }，加拿大讀秒：每{ $period }限下{ $n }手
clock-fischer = 每方{ $main }，每手加{ $inc }（費雪制）
clock-ms = { $n }毫秒
clock-s = { $n }秒
clock-min = { $n }分鐘
clock-h = { $n }小時

## 結果與終局原因。勝負以子計（第9條、第11條）：`$s` 為子數（8¾），`$n` 為目數的整數部分。

result-draw = 和棋（0）
result-void = 無勝負（Void）
result-unknown = 結果未知（?）
result-resign = { $w }中盤勝（{ $r }）
result-time = { $w }超時勝（{ $r }）
result-forfeit = { $w }勝（對方判負，{ $r }）
result-points = { $w }勝{ $margin }（{ $r }）
result-win = { $w }勝（{ $r }）
result-margin = { $s }子
result-margin-one = { $s }子
result-margin-half = { $s }子
result-margin-half-only = { $s }子
reason-count = 數子
reason-resignation = 認輸
reason-time = 超時
reason-warnings = 兩次警告判負
reason-arbiter = 裁判裁決
reason-absent = 遲到判負（第22條）

## 棋手顯示器（128x64 像素，`table/`）上的短詞，須放得下。

face-call-arbiter = ！請叫裁判！
face-paused = 暫停
face-counting = 數子
face-black = 黑方
face-white = 白方
face-vs = 對手 { $name }
face-waiting-arbiter = 等待裁判
face-waiting-arbiter-2 = 宣布開始
face-starts-black = 黑方按鐘
face-starts-white = 白方按鐘
face-starts-2 = 開始計時
face-no-clock = 不計時
face-move = 已下{ $n }手
face-move-label = 手數
face-sudden-death = 用完判負
face-fischer = 每手加{ $inc }
face-fischer-short = 每手+{ $inc }
face-byoyomi-main = 讀秒{ $period }{ $n }次
face-byoyomi-short = { $n }×{ $period }
face-no-period = 無讀秒
face-last-period = 最後一次讀秒
face-periods = 剩{ $n }次讀秒
face-canadian-main = 每{ $period }{ $n }手
face-canadian-short = { $period }內{ $n }手
face-stones-one = 還需下1手
face-stones = 還需下{ $n }手
face-time-out = 超時
face-fix = 復原
face-game-over = 終局
face-win = { $w }勝
face-win-resign = { $w }中盤勝
face-win-time = { $w }超時勝
face-win-forfeit = { $w }勝（對方判負）
face-win-by = { $w }勝{ $margin }
face-margin = { $s }子
face-margin-one = { $s }子
face-margin-half = { $s }子
face-margin-half-only = { $s }子
face-draw = 和棋
face-void = 無勝負
face-no-game = 無對局
face-board = 棋盤
face-h = { $n }小時
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }毫秒

## 棋手入座與遲到（第22條）：`$n` 桌號，`$late` 遲到多久，`$taken` 共扣除的時間（`7:12`、`14:24`）。
face-table = 第{ $n }桌
face-check-in = 入座後請按
face-check-in-2 = 本方棋鐘
face-checked-in = 已入座
face-away = 入座請按棋鐘
face-late = 遲到{ $late }
face-late-taken = 共扣除{ $taken }
