# 頁面用語：棋盤即時頁、賽場總覽、登入、輪次存檔、解說頁。

lang-switch-label = 語言
side-black = 黑方
side-white = 白方
rank-dan = { $n }段
rank-kyu = { $n }級
rank-pro = { $n }段
rank-numerals = 一 二 三 四 五 六 七 八 九
status-connecting = 連線中
status-online = 線上
status-offline = 離線
status-restoring = 重新啟動中
status-reconnecting = 重新連線中
status-unknown = 未知
dash-none = 無

## 棋盤即時頁

live-board-aria = 棋盤
live-nav-first = 第一手（Home）
live-nav-back = 後退（←）
live-nav-forward = 前進（→）
live-nav-last = 最後一手（End）
live-nav-live-title = 跟隨最新著手
live-nav-live = 即時
live-move-aria = 手數
live-move-placeholder = 手數
live-jump-aria = 跳到第幾手
live-go = 前往
live-try-title = 從目前局面試下；不影響對局
live-try = 試下
live-back-to-game = 回到對局
live-move-numbers = 顯示手數
live-faces = 棋手看到的顯示器
live-face-black = 黑方顯示器
live-face-white = 白方顯示器
live-clock-link = 本桌平板上的棋手棋鐘：
live-open = 開啟
live-info-event = 比賽
live-info-round = 輪次
live-info-table = 桌次
live-info-time = 時限
live-info-komi = 貼子
live-info-handicap = 讓子
live-info-captures = 提子
live-analysis = 引擎分析
live-analysis-what = 各手的領先目數，棋盤上為候選著法
live-graph-aria = 各手的領先目數
live-moves = 棋譜
live-captured = 提{ $n }子
live-warnings = 警告{ $n }次
live-warnings-one = 警告1次
live-move-of = 第{ $n }手，共{ $total }手
live-variation = 自第{ $from }手的變化：{ $moves } · 輪到{ $side }
live-click-to-place = 點選落子
live-round = 第{ $round }輪
live-table = 第{ $table }桌
live-komi = 貼{ $komi }
live-handicap = 讓{ $n }子
live-captures = 黑方 { $b }，白方 { $w }
live-result = 結果：{ $result }
live-result-reason = 結果：{ $result }（{ $reason }）
live-counting = 數子中
live-summary = 第{ $n }手：{ $color } { $point }
live-stone-black = 黑
live-stone-white = 白
live-pass = 停一手
live-no-moves = 尚無著手
live-after-move = 第{ $n }手後：{ $lead }
live-even = 均勢
live-leads = { $side }領先{ $points }目
live-best = 最佳：{ $moves }
live-no-estimate = 第{ $n }手後：（暫）無估計
live-jump-invalid = 手數，0 至 { $total }
live-arbiters-heading = 裁判 – 即時
live-arbiters-clock-note = 此頁顯示即時的時間和手數：有轉播延遲時，只交給該桌的平板。

## 賽場總覽

overview-title = tengen 賽場
overview-title-live = tengen 賽場：裁判即時
overview-boards = { $n } 個棋盤
overview-silent-count = { $n } 個無訊號
overview-table = 第{ $table }桌
overview-round = 第{ $round }輪
overview-move = 第{ $n }手
overview-result = 結果：{ $result }
overview-alerts = { $n } 則待處理的提示
overview-alerts-one = 1 則待處理的提示
overview-silent-s = 無訊號 { $n }秒
overview-silent-min = 無訊號 { $n }分鐘
overview-silent-h = 無訊號 { $h }小時
overview-silent-h-min = 無訊號 { $h }小時{ $m }分鐘
overview-no-broker = 未連上訊息伺服器：棋盤資訊可能已過時
overview-no-broker-why = 未連上訊息伺服器（{ $broker }）：{ $error }

## 登入

login-title = tengen 賽場：裁判登入
login-heading = 裁判控制台
login-name = 姓名
login-password = 密碼或權杖
login-submit = 登入
login-wrong = 姓名或密碼錯誤。
login-stopping = 賽場伺服器正在停止。
login-too-many = 登入失敗次數過多：請 { $s } 秒後再試。

## 輪次存檔

rounds-title = 輪次
rounds-none = 尚無輪次。
rounds-round = 輪次
rounds-games = 對局
rounds-finished = 已結束
rounds-records = 棋譜
rounds-all-boards = 全部棋盤

## 解說頁

commentary-heading = 解說 – { $what }
commentary-live-closed = 即時（研究室專用）
commentary-delayed = 延遲 { $delay }
commentary-live-public = 即時（無轉播延遲）
commentary-note-live-ahead = 每一手都在落子時顯示，早於轉播：在公開頁面顯示之前，請勿傳出研究室。
commentary-note-live = 每一手都在落子時顯示，與觀眾所見相同。
commentary-note-delayed = 與觀眾所見相同：最近 { $delay } 尚未顯示。
commentary-analysis-note = 引擎只看到觀眾已看到的局面，落後 { $delay }：最新的著手尚無估計。
delay-moves = { $n }手
delay-moves-one = 1手
delay-min = { $n }分鐘
delay-s = { $n }秒

## 一臺的事件紀錄（第31號問題），僅限裁判，可列印交仲裁委員會。

incident-title = 事件紀錄
incident-round-title = 第{ $round }輪事件紀錄
incident-game = 第{ $table }桌 · 第{ $round }輪 · 棋盤 { $board } · 對局 { $game }
incident-players = 黑方：{ $black } · 白方：{ $white }
incident-void-mark = 無效
incident-board-did = 棋盤
incident-th-time = 時間
incident-th-move = 手數
incident-th-what = 經過
incident-th-by = 處理人
incident-none = 無可紀錄：本局沒有提示、警告或裁判操作。
incident-no-games = 本場館沒有這一輪的對局。
incident-print = 列印
incident-made = 依據各棋盤本身的紀錄與裁判在場館的操作產生。時間為本裝置的當地時間。
incident-why = 原因：{ $reason }
incident-alert = 提示：{ $what }
incident-restored-pending = { $what }：棋盤已恢復；警告待定，由裁判決定
incident-restored = { $what }：棋盤已恢復
incident-confirmed = { $what }：已確認
incident-dismissed = { $what }：關閉（無違規）
incident-warning = { $side }被判警告（{ $article }），本局第{ $n }次
incident-warning-given = 裁判自行判{ $side }警告（{ $article }），本局第{ $n }次
incident-withdrawn = 撤銷{ $side }一次警告，剩餘{ $n }次
incident-paused = 棋鐘停止（黑方 { $b }，白方 { $w }）
incident-resumed = 棋鐘恢復（黑方 { $b }，白方 { $w }）
incident-clock-set = 設定棋鐘：黑方 { $b }，白方 { $w }
incident-restarted = 棋盤重新啟動；自 { $since }（UTC）起斷電，棋鐘停在當時的讀數
incident-restarted-unknown = 棋盤重新啟動；棋鐘停在當時的讀數
incident-late = { $side }遲到 { $late } 入座：在規定時限內加倍扣除共 { $taken }，入座時扣除 { $deducted }
incident-result = 對局結束：{ $result }，{ $how }
incident-reopened = 撤銷結果，恢復對局（原結果 { $result }）
incident-voided = 判對局無效：沒有結果，已從所有公開網頁撤下
incident-confirm-result = 確認結果並寫入成績檔案：{ $result }
incident-correct-result = 更正已確認的結果：{ $from } → { $to }
commentary-note-over = 對局已結束：所有著手均已顯示。
