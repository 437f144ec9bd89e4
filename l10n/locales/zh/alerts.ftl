# 提示：每个代码一个标题和一句给裁判的话，注明条款与应核对的事项。
# 措辞依照《中国围棋竞赛规则》原文（见 docs/languages.md）。

alert-article = 第{ $a }条
alert-article-clause = 第{ $a }条第{ $c }款
alert-uncaptured_stones = 未提或漏提无气之子
alert-uncaptured_stones-check = 第18条第2款、第22条第6款：下子后，未提或漏提对方无气之子；包含提子的着手，必须全部提清之后方可按钟。请核对盘上的无气之子：判未提、漏提者警告一次并提取无气之子。
alert-wrong_capture = 误提有气之子
alert-wrong_capture-check = 第18条第1款：下子后，误提对方有气之子。请核对被提之子：判误提者警告一次，将有气之子放回原处。
alert-stone_moved = 棋子移动
alert-stone_moved-check = 第17条第5款：发现前面下的棋子已有移动。在双方意见一致的前提下，将移动之子挪回原处；如有故意移子的证据，应判移子者为负。
alert-takeback = 悔棋
alert-takeback-check = 第17条第3款：棋子离手，表示着子权完成；完成着子权后，再将棋子拿起下在别处，称为悔棋。发生悔棋时，由对方于下一手着手之前向裁判提出方为有效。请核对：悔棋无效，判棋子放回原处，并警告一次。
alert-double_move = 连下两着
alert-double_move-check = 第17条第2款：一方并未表示弃权，另一方连下两着。请核对：判第二着无效并警告一次。
alert-wrong_color = 拿错黑白棋
alert-wrong_color-check = 第17条第1款：开赛后拿错黑白棋。在第10手之前（含）允许改正；超过10手棋之后，一律不予改正。
alert-suicide = 禁着点
alert-suicide-check = 第19条：棋子下在禁着点上，判着手无效，弃权一次。禁着点（第5条）：某方下子后，该子立即呈无气状态，同时又不能提取对方的棋子。
alert-ko = 提劫未找劫材
alert-ko-check = 第18条第3款：劫争须找劫材时未找而提劫。请核对：判提劫之手无效，弃权一次并警告一次。
alert-superko = 全局同形再现
alert-superko-check = 第20条：全局同形再现原则上必须禁止（第6条：着子后不得使对方重复面临曾出现过的局面）。请核对全局同形；三劫循环、四劫循环、长生等罕见特例，可按比赛的补充规定判无胜负、和棋或加赛。
alert-clock_before_move = 着子前按计时器
alert-clock_before_move-check = 第17条第4款：须于着子之后才能按计时器。着子之前或与着子同时按计时器的，判警告一次，不改变计时器读数。
alert-board_disturbed = 棋局散乱
alert-board_disturbed-check = 第17条第6款：棋局散乱。经复盘，如双方达成一致意见，应按复盘次序继续比赛；棋盘的记录即可用于复盘。
alert-time_expired = 超时
alert-time_expired-check = 第22条第5款：读秒至最后1分钟超时而未着子。原则上应按判负裁决；经读秒方申请，也可视为放弃着手权使用虚着，改判弃权一次，允许续弈，继续实施原先读秒方式。
alert-time_expired-check-12-4 = 第12条第4款：包干用时制是规定基本时限之内必须结束比赛的计时办法，超时判负。本局不设读秒，不能改判弃权一次（第22条第5款只适用于读秒）。
alert-time_expired-check-12-5 = 第12条第5款：定时限步制，用完基本时限后，限在规定时间之内着完规定的步数；本时段未着完规定的步数而超时。第22条第5款的弃权一次只适用于读秒，原则上应按超时判负裁决。
alert-mismatch = 棋盘与记录不符
alert-mismatch-check = 棋盘上的棋子与对局记录不符，且不属于任何一条规定的情形。请对照记录核对棋盘并恢复原状。
alert-board_restarted = 对局中棋盘重启
alert-board_restarted-check = 第22条第8款：对局中棋盘曾断电或重启，计时器按当时读数停止。请与双方核对已用时间，再恢复计时器；单方面的时间读数改拨，须经裁判长的认可。
alert-board_offline = 棋盘离线
alert-board_offline-check = 赛场服务器已收不到这块棋盘的信号。请到该台查看电源和网络；棋手的计时器可能已停止。
alert-storage_low = 棋盘存储空间将满
alert-storage_low-check = 棋盘仍在记录，但剩余空间不多。请清理其存储空间。
alert-storage_full = 棋盘存储空间已满
alert-storage_full-check = 棋盘无法写入事件；对局继续，事件暂存于内存。请立即清理其存储空间。

## 设备故障

fault-link_lost = 传感器连接中断
fault-stuck = 传感器卡住
fault-noisy = 传感器读数不稳
fault-wrong_size = 收到其他路数棋盘的扫描
fault-board_offline = 棋盘离线
fault-storage_low = 棋盘存储空间将满
fault-storage_full = 棋盘存储空间已满
alert-absent = 棋手迟到未入座
alert-absent-check = 第22条第1款：比赛开始时，棋手迟到不得超过1小时（含），超过这一时限判负。请核对后记录对方不战而胜，或棋手在场时撤销。
alert-absent-check-22-2 = 第22条第2款：赛场和住地基本上同在一处的，比赛开始时棋手迟到不得超过15分钟，超过这一时限判负。请核对后记录对方不战而胜，或棋手在场时撤销。
alert-absent-check-22-3 = 第22条第3款：双方迟到应分别处理，直至判双方负。双方到时限仍未入座：请记录双方负，或棋手在场时撤销。
alert-absent-check-22-4 = 第22条第4款：快棋比赛中棋手迟到，实施按时缺席读秒；读秒过程告终，棋手即自动失去该局参赛资格。请记录对方不战而胜，或棋手在场时撤销。
