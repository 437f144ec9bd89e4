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

## 一台的事件记录（第31号问题），仅限裁判，可打印交仲裁委员会。

incident-title = 事件记录
incident-round-title = 第{ $round }轮事件记录
incident-game = 第{ $table }台 · 第{ $round }轮 · 棋盘 { $board } · 对局 { $game }
incident-players = 黑方：{ $black } · 白方：{ $white }
incident-void-mark = 无效
incident-board-did = 棋盘
incident-th-time = 时间
incident-th-move = 手数
incident-th-what = 经过
incident-th-by = 处理人
incident-none = 无可记录：本局没有提示、警告或裁判操作。
incident-no-games = 本场馆没有这一轮的对局。
incident-print = 打印
incident-made = 依据各棋盘自身的记录和裁判在场馆的操作生成。时间为本设备的当地时间。
incident-why = 原因：{ $reason }
incident-alert = 提示：{ $what }
incident-restored-pending = { $what }：棋盘已恢复；警告待定，由裁判决定
incident-restored = { $what }：棋盘已恢复
incident-confirmed = { $what }：已确认
incident-dismissed = { $what }：关闭（无违规）
incident-warning = { $side }被判警告（{ $article }），本局第{ $n }次
incident-warning-given = 裁判自行判{ $side }警告（{ $article }），本局第{ $n }次
incident-withdrawn = 撤销{ $side }一次警告，剩余{ $n }次
incident-paused = 计时器停止（黑方 { $b }，白方 { $w }）
incident-resumed = 计时器恢复（黑方 { $b }，白方 { $w }）
incident-clock-set = 设定计时：黑方 { $b }，白方 { $w }
incident-restarted = 棋盘重启；自 { $since }（UTC）起断电，计时器停在当时的读数
incident-restarted-unknown = 棋盘重启；计时器停在当时的读数
incident-late = { $side }迟到 { $late } 入座：在规定时限内加倍扣除共 { $taken }，入座时扣除 { $deducted }
incident-result = 对局结束：{ $result }，{ $how }
incident-reopened = 撤销结果，恢复对局（原结果 { $result }）
incident-voided = 判对局无效：没有结果，已从所有公开页面撤下
incident-confirm-result = 确认结果并写入成绩文件：{ $result }
incident-correct-result = 更正已确认的结果：{ $from } → { $to }
commentary-note-over = 对局已结束：所有着手均已显示。
