# 计时器用语（读秒、加拿大读秒、暂停）、结果与终局原因。

clock-page-title = tengen 计时器
clock-black = 黑方
clock-white = 白方
clock-black-alt = 黑方计时器
clock-white-alt = 白方计时器
clock-periods = 剩{ $n }次读秒
clock-periods-one = 剩1次读秒
clock-stones = 本时段还需下{ $n }手
clock-stones-one = 本时段还需下1手
clock-paused = 已暂停
clock-waiting-arbiter = 等待裁判
clock-period-used = 用去一次读秒
clock-period-used-left = 用去一次读秒，还剩{ $n }次
clock-seconds = { $s }秒
clock-counting = 读秒 { $s }
clock-counting-last = 读秒 { $s }（最后一次）
clock-none = 不计时
clock-sudden-death = 每方{ $main }，包干
clock-byoyomi = 每方{ $main }，读秒{ $period }{ $n }次
clock-canadian = 每方{ $main }，加拿大读秒：每{ $period }限着{ $n }手
clock-fischer = 每方{ $main }，每手加{ $inc }（费舍尔计时）
clock-ms = { $n }毫秒
clock-s = { $n }秒
clock-min = { $n }分钟
clock-h = { $n }小时

## 结果与终局原因。胜负以子计（第9条、第11条）：`$s` 为子数（8¾），`$n` 为目数的整数部分。

result-draw = 和棋（0）
result-void = 无胜负（Void）
result-unknown = 结果未知（?）
result-resign = { $w }中盘胜（{ $r }）
result-time = { $w }超时胜（{ $r }）
result-forfeit = { $w }胜（对方判负，{ $r }）
result-points = { $w }胜{ $margin }（{ $r }）
result-win = { $w }胜（{ $r }）
result-margin = { $s }子
result-margin-one = { $s }子
result-margin-half = { $s }子
result-margin-half-only = { $s }子
reason-count = 数子
reason-resignation = 认输
reason-time = 超时
reason-warnings = 两次警告判负
reason-arbiter = 裁判裁决
reason-absent = 迟到判负（第22条）

## 棋手显示屏（128x64 像素，`table/`）上的短词，须放得下。

face-call-arbiter = ！请叫裁判！
face-paused = 暂停
face-counting = 数子
face-black = 黑方
face-white = 白方
face-vs = 对手 { $name }
face-waiting-arbiter = 等待裁判
face-waiting-arbiter-2 = 宣布开始
face-starts-black = 黑方按钟
face-starts-white = 白方按钟
face-starts-2 = 开始计时
face-no-clock = 不计时
face-move = 已下{ $n }手
face-move-label = 手数
face-sudden-death = 包干
face-fischer = 每手加{ $inc }
face-fischer-short = 每手+{ $inc }
face-byoyomi-main = 读秒{ $period }{ $n }次
face-byoyomi-short = { $n }×{ $period }
face-no-period = 无读秒
face-last-period = 最后一次读秒
face-periods = 剩{ $n }次读秒
face-canadian-main = 每{ $period }{ $n }手
face-canadian-short = { $period }内{ $n }手
face-stones-one = 还需下1手
face-stones = 还需下{ $n }手
face-time-out = 超时
face-fix = 复原
face-game-over = 终局
face-win = { $w }胜
face-win-resign = { $w }中盘胜
face-win-time = { $w }超时胜
face-win-forfeit = { $w }胜（对方判负）
face-win-by = { $w }胜{ $margin }
face-margin = { $s }子
face-margin-one = { $s }子
face-margin-half = { $s }子
face-margin-half-only = { $s }子
face-draw = 和棋
face-void = 无胜负
face-no-game = 无对局
face-board = 棋盘
face-h = { $n }小时
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }毫秒

## 棋手入座与迟到（第22条）：`$n` 台号，`$late` 迟到多久，`$taken` 共扣除的时间（`7:12`、`14:24`）。
face-table = 第{ $n }台
face-check-in = 入座后请按
face-check-in-2 = 本方的钟
face-checked-in = 已入座
face-away = 入座请按钟
face-late = 迟到{ $late }
face-late-taken = 共扣除{ $taken }
