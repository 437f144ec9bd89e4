# 中心站的各賽場鏈路頁面（hall/src/venues/venues.html），供轉播導演使用。

venues-docTitle = tengen 中心站：賽場
venues-title = 賽場：與中心站的鏈路
venues-overview = 全部棋盤
venues-explain = 每個賽場的大廳和訊息伺服器把本場棋盤推送到中心站。中心站按編號核對每一條事件，鏈路遺失的事件向賽場重新索取。正常：沒有缺失。落後：中心站仍在索取賽場已有的事件。中斷：賽場一段時間沒有訊息；賽場自己的裁判台照常運作，鏈路恢復後中心站自動補齊。
venues-venue = 賽場
venues-link = 鏈路
venues-boards = 棋盤
venues-hall = 賽場大廳
venues-filled = 重新索取的事件
venues-live = 經鏈路到達的事件
venues-loading = 載入中…
venues-up = 正常
venues-lagging = 落後 { $n } 條事件
venues-waiting = 正在為 { $n } 塊棋盤索取事件
venues-down = 中斷
venues-downSince = 自 { $time } 起中斷
venues-unknown = 尚無訊息
venues-bridgeLost = 橋接回報連線已斷
venues-hallSilent = 無回應
venues-hallHeard = 正常
venues-updated = 更新於 { $time }
venues-unreachable = 中心站沒有回應。
