# 计时器用语（读秒、加拿大读秒、暂停）、结果与终局原因。

clock-page-title = tengen 计时器
clock-black = 黑方
clock-white = 白方
clock-black-alt = 黑方计时器
clock-white-alt = 白方计时器
clock-periods = 读秒{ $n }次
clock-periods-one = 读秒1次
clock-stones = { $n }手
clock-stones-one = 1手
clock-paused = 已暂停
clock-waiting-arbiter = 等待裁判
clock-period-used = 用去一次读秒
clock-period-used-left = 用去一次读秒，还剩{ $n }次
clock-seconds = { $s }秒
clock-counting = 读秒 { $s }
clock-counting-last = 读秒 { $s }（最后一次）
clock-none = 不计时
clock-sudden-death = { $main }，用完判负
clock-byoyomi = { $main } + 读秒 { $n } × { $period }
clock-canadian = { $main } + 加拿大读秒 { $period }内{ $n }手
clock-fischer = { $main }，每手加{ $inc }（费舍尔）
clock-ms = { $n }毫秒
clock-s = { $n }秒
clock-min = { $n }分钟
clock-h = { $n }小时

## 结果与终局原因

result-draw = 和棋（0）
result-void = 无胜负（Void）
result-unknown = 结果未知（?）
result-resign = { $w }中盘胜（{ $r }）
result-time = { $w }超时胜（{ $r }）
result-forfeit = { $w }不战而胜（{ $r }）
result-points = { $w }胜{ $n }目（{ $r }）
result-win = { $w }胜（{ $r }）
reason-count = 数子
reason-resignation = 认输
reason-time = 超时
reason-warnings = 两次警告
reason-arbiter = 裁判判定

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
face-move = 第{ $n }手
face-move-label = 手数
face-sudden-death = 用完判负
face-fischer = 每手加{ $inc }
face-fischer-short = 每手+{ $inc }
face-byoyomi-main = 读秒{ $n }×{ $period }
face-byoyomi-short = { $n }×{ $period }
face-no-period = 无读秒
face-last-period = 最后一次读秒
face-periods = 读秒{ $n }次
face-canadian-main = 读秒{ $period }内{ $n }手
face-canadian-short = { $period }内{ $n }手
face-stones-one = 还剩1手
face-stones = 还剩{ $n }手
face-time-out = 超时
face-fix = 复原
face-game-over = 终局
face-win = { $w }胜
face-win-resign = { $w }中盘胜
face-win-time = { $w }超时胜
face-win-forfeit = { $w }不战而胜
face-win-by = { $w }胜{ $margin }目
face-draw = 和棋
face-void = 无胜负
face-no-game = 无对局
face-board = 棋盘
face-h = { $n }小时
face-m = { $n }分
face-s = { $n }秒
face-ms = { $n }毫秒
