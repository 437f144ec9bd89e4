# 計時器用語（讀秒、加拿大讀秒、暫停）、結果與終局原因。

clock-page-title = tengen 計時器
clock-black = 黑方
clock-white = 白方
clock-black-alt = 黑方計時器
clock-white-alt = 白方計時器
clock-periods = 讀秒{ $n }次
clock-periods-one = 讀秒1次
clock-stones = { $n }手
clock-stones-one = 1手
clock-paused = 已暫停
clock-waiting-arbiter = 等待裁判
clock-period-used = 用去一次讀秒
clock-period-used-left = 用去一次讀秒，還剩{ $n }次
clock-seconds = { $s }秒
clock-counting = 讀秒 { $s }
clock-counting-last = 讀秒 { $s }（最後一次）
clock-none = 不計時
clock-sudden-death = { $main }，用完判負
clock-byoyomi = { $main } + 讀秒 { $n } × { $period }
clock-canadian = { $main } + 加拿大讀秒 { $period }內{ $n }手
clock-fischer = { $main }，每手加{ $inc }（費舍爾）
clock-ms = { $n }毫秒
clock-s = { $n }秒
clock-min = { $n }分鐘
clock-h = { $n }小時

## 結果與終局原因

result-draw = 和棋（0）
result-void = 無勝負（Void）
result-unknown = 結果未知（?）
result-resign = { $w }中盤勝（{ $r }）
result-time = { $w }超時勝（{ $r }）
result-forfeit = { $w }不戰而勝（{ $r }）
result-points = { $w }勝{ $n }目（{ $r }）
result-win = { $w }勝（{ $r }）
reason-count = 數子
reason-resignation = 認輸
reason-time = 超時
reason-warnings = 兩次警告
reason-arbiter = 裁判判定

## 棋手顯示屏（128x64 像素，`table/`）上的短詞，須放得下。

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
face-move = 第{ $n }手
face-move-label = 手數
face-sudden-death = 用完判負
face-fischer = 每手加{ $inc }
face-fischer-short = 每手+{ $inc }
face-byoyomi-main = 讀秒{ $n }×{ $period }
face-byoyomi-short = { $n }×{ $period }
face-no-period = 無讀秒
face-last-period = 最後一次讀秒
face-periods = 讀秒{ $n }次
face-canadian-main = 讀秒{ $period }內{ $n }手
face-canadian-short = { $period }內{ $n }手
face-stones-one = 還剩1手
face-stones = 還剩{ $n }手
face-time-out = 超時
face-fix = 復原
face-game-over = 終局
face-win = { $w }勝
face-win-resign = { $w }中盤勝
face-win-time = { $w }超時勝
face-win-forfeit = { $w }不戰而勝
face-win-by = { $w }勝{ $margin }目
face-draw = 和棋
face-void = 無勝負
face-no-game = 無對局
face-board = 棋盤
face-h = { $n }小時
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }毫秒
