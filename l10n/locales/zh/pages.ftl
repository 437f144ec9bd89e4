# 页面用语：棋盘实时页、赛场总览、登录、轮次存档、解说页。

lang-switch-label = 语言
side-black = 黑方
side-white = 白方
rank-dan = { $n }段
rank-kyu = { $n }级
rank-pro = { $n }段
rank-numerals = 一 二 三 四 五 六 七 八 九
status-connecting = 连接中
status-online = 在线
status-offline = 离线
status-restoring = 重启中
status-reconnecting = 重新连接中
status-unknown = 未知
dash-none = 无

## 棋盘实时页

live-board-aria = 棋盘
live-nav-first = 第一手（Home）
live-nav-back = 后退（←）
live-nav-forward = 前进（→）
live-nav-last = 最后一手（End）
live-nav-live-title = 跟随最新着手
live-nav-live = 实时
live-move-aria = 手数
live-move-placeholder = 手数
live-jump-aria = 跳到第几手
live-go = 跳转
live-try-title = 从当前局面试下；不影响对局
live-try = 试下
live-back-to-game = 回到对局
live-move-numbers = 显示手数
live-faces = 棋手看到的显示屏
live-face-black = 黑方显示屏
live-face-white = 白方显示屏
live-clock-link = 本台平板上的棋手计时器：
live-open = 打开
live-info-event = 比赛
live-info-round = 轮次
live-info-table = 台次
live-info-time = 用时
live-info-komi = 贴子
live-info-handicap = 让子
live-info-captures = 提子
live-analysis = 引擎分析
live-analysis-what = 各手的领先目数，棋盘上为候选着法
live-graph-aria = 各手的领先目数
live-moves = 棋谱
live-captured = 提{ $n }子
live-warnings = 警告{ $n }次
live-warnings-one = 警告1次
live-move-of = 第{ $n }手，共{ $total }手
live-variation = 自第{ $from }手的变化：{ $moves } · 轮到{ $side }
live-click-to-place = 点击落子
live-round = 第{ $round }轮
live-table = 第{ $table }台
live-komi = 贴{ $komi }
live-handicap = 让{ $n }子
live-captures = 黑方 { $b }，白方 { $w }
live-result = 结果：{ $result }
live-result-reason = 结果：{ $result }（{ $reason }）
live-counting = 数子中
live-summary = 第{ $n }手：{ $color } { $point }
live-stone-black = 黑
live-stone-white = 白
live-pass = 停一手
live-no-moves = 尚无着手
live-after-move = 第{ $n }手后：{ $lead }
live-even = 均势
live-leads = { $side }领先{ $points }目
live-best = 最佳：{ $moves }
live-no-estimate = 第{ $n }手后：（暂）无估计
live-jump-invalid = 手数，0 至 { $total }
live-arbiters-heading = 裁判 – 实时
live-arbiters-clock-note = 此页显示实时的时间和手数：有转播延迟时，只交给该台的平板。

## 赛场总览

overview-title = tengen 赛场
overview-title-live = tengen 赛场：裁判实时
overview-boards = { $n } 块棋盘
overview-silent-count = { $n } 块无信号
overview-table = 第{ $table }台
overview-round = 第{ $round }轮
overview-move = 第{ $n }手
overview-result = 结果：{ $result }
overview-alerts = { $n } 条待处理的提示
overview-alerts-one = 1 条待处理的提示
overview-silent-s = 无信号 { $n }秒
overview-silent-min = 无信号 { $n }分钟
overview-silent-h = 无信号 { $h }小时
overview-silent-h-min = 无信号 { $h }小时{ $m }分钟
overview-no-broker = 未连接消息服务器：棋盘信息可能已过时
overview-no-broker-why = 未连接消息服务器（{ $broker }）：{ $error }

## 登录

login-title = tengen 赛场：裁判登录
login-heading = 裁判控制台
login-name = 姓名
login-password = 密码或令牌
login-submit = 登录
login-wrong = 姓名或密码错误。
login-stopping = 赛场服务器正在停止。
login-too-many = 登录失败次数过多：请 { $s } 秒后再试。

## 轮次存档

rounds-title = 轮次
rounds-none = 尚无轮次。
rounds-round = 轮次
rounds-games = 对局
rounds-finished = 已结束
rounds-records = 棋谱
rounds-all-boards = 全部棋盘

## 解说页

commentary-heading = 解说 – { $what }
commentary-live-closed = 实时（研究室专用）
commentary-delayed = 延迟 { $delay }
commentary-live-public = 实时（无转播延迟）
commentary-note-live-ahead = 每一手都在落子时显示，早于转播：在公开页面显示之前，请勿传出研究室。
commentary-note-live = 每一手都在落子时显示，与观众所见相同。
commentary-note-delayed = 与观众所见相同：最近 { $delay } 尚未显示。
commentary-analysis-note = 引擎只看到观众已看到的局面，落后 { $delay }：最新的着手尚无估计。
delay-moves = { $n }手
delay-moves-one = 1手
delay-min = { $n }分钟
delay-s = { $n }秒
