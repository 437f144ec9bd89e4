# 中心站的各赛场链路页面（hall/src/venues/venues.html），供转播导演使用。

venues-docTitle = tengen 中心站：赛场
venues-title = 赛场：与中心站的链路
venues-overview = 全部棋盘
venues-explain = 每个赛场的大厅和消息服务器把本场棋盘推送到中心站。中心站按编号核对每一条事件，链路丢失的事件向赛场重新索取。正常：没有缺失。滞后：中心站仍在索取赛场已有的事件。中断：赛场一段时间没有消息；赛场自己的裁判台照常工作，链路恢复后中心站自动补齐。
venues-venue = 赛场
venues-link = 链路
venues-boards = 棋盘
venues-hall = 赛场大厅
venues-filled = 重新索取的事件
venues-live = 经链路到达的事件
venues-loading = 加载中…
venues-up = 正常
venues-lagging = 滞后 { $n } 条事件
venues-waiting = 正在为 { $n } 块棋盘索取事件
venues-down = 中断
venues-downSince = 自 { $time } 起中断
venues-unknown = 尚无消息
venues-bridgeLost = 桥接报告连接已断
venues-hallSilent = 无响应
venues-hallHeard = 正常
venues-updated = 更新于 { $time }
venues-unreachable = 中心站没有响应。
