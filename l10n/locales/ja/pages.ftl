# ページの言葉：盤のライブページ、会場の一覧、ログイン、ラウンドの記録、解説ページ。

lang-switch-label = 言語
side-black = 黒
side-white = 白
rank-dan = { $n }段
rank-kyu = { $n }級
rank-pro = { $n }段
rank-numerals = 一 二 三 四 五 六 七 八 九
status-connecting = 接続中
status-online = オンライン
status-offline = オフライン
status-restoring = 再起動中
status-reconnecting = 再接続中
status-unknown = 不明
dash-none = なし

## 盤のライブページ

live-board-aria = 碁盤
live-nav-first = 初手へ（Home）
live-nav-back = 戻る（←）
live-nav-forward = 進む（→）
live-nav-last = 最終手へ（End）
live-nav-live-title = 新しい着手を追う
live-nav-live = ライブ
live-move-aria = 手数
live-move-placeholder = 手数
live-jump-aria = 手数を指定して移動
live-go = 移動
live-try-title = 表示中の局面から試し打ち（対局には影響しません）
live-try = 試し打ち
live-back-to-game = 対局に戻る
live-move-numbers = 手数を表示
live-faces = 対局者が見ている表示
live-face-black = 黒の表示
live-face-white = 白の表示
live-clock-link = この席のタブレット用の対局時計：
live-open = 開く
live-info-event = 大会
live-info-round = 回戦
live-info-table = 席
live-info-time = 持ち時間
live-info-komi = コミ
live-info-handicap = 置き石
live-info-captures = アゲハマ
live-analysis = エンジン解析
live-analysis-what = 各手の形勢（目数）、盤上は候補手
live-graph-aria = 各手の形勢（目数）
live-moves = 棋譜
live-captured = アゲハマ{ $n }
live-warnings = 警告{ $n }回
live-warnings-one = 警告1回
live-move-of = { $total }手中{ $n }手目
live-variation = { $from }手目からの変化：{ $moves } · { $side }の番
live-click-to-place = クリックで石を置く
live-round = 第{ $round }回戦
live-table = { $table }番席
live-komi = コミ{ $komi }
live-handicap = { $n }子局
live-captures = 黒 { $b }、白 { $w }
live-result = 結果：{ $result }
live-result-reason = 結果：{ $result }（{ $reason }）
live-counting = 計算中
live-summary = { $n }手目：{ $color } { $point }
live-stone-black = 黒
live-stone-white = 白
live-pass = パス
live-no-moves = まだ着手なし
live-after-move = { $n }手目の後：{ $lead }
live-even = 互角
live-leads = { $side }が{ $points }目リード
live-best = 最善：{ $moves }
live-no-estimate = { $n }手目の後：推定なし（まだ）
live-jump-invalid = 手数（0～{ $total }）
live-arbiters-heading = 審判 – ライブ
live-arbiters-clock-note = 実際の時間と手数を表示します。中継の遅延があるときは、その席のタブレットにだけ渡してください。

## 会場の一覧

overview-title = tengen 会場
overview-title-live = tengen 会場：審判用ライブ
overview-boards = 盤 { $n } 面
overview-silent-count = 信号なし { $n } 面
overview-table = { $table }番席
overview-round = 第{ $round }回戦
overview-move = { $n }手目
overview-result = 結果：{ $result }
overview-alerts = 未処理のアラート { $n } 件
overview-alerts-one = 未処理のアラート 1 件
overview-silent-s = 信号なし { $n }秒
overview-silent-min = 信号なし { $n }分
overview-silent-h = 信号なし { $h }時間
overview-silent-h-min = 信号なし { $h }時間{ $m }分
overview-no-broker = メッセージサーバーに接続していません：盤の情報が古い可能性があります
overview-no-broker-why = メッセージサーバーに接続していません（{ $broker }）：{ $error }

## ログイン

login-title = tengen 会場：審判ログイン
login-heading = 審判コンソール
login-name = 名前
login-password = パスワードまたはトークン
login-submit = ログイン
login-wrong = 名前またはパスワードが違います。
login-stopping = 会場のサーバーは停止中です。
login-too-many = ログインの失敗が多すぎます：{ $s }秒後にもう一度お試しください。

## ラウンドの記録

rounds-title = 回戦
rounds-none = まだ回戦はありません。
rounds-round = 回戦
rounds-games = 対局
rounds-finished = 終局
rounds-records = 棋譜
rounds-all-boards = すべての盤

## 解説ページ

commentary-heading = 解説 – { $what }
commentary-live-closed = ライブ（検討室）
commentary-delayed = { $delay }遅れ
commentary-live-public = ライブ（中継の遅延なし）
commentary-note-live-ahead = 打たれた手をすぐに、中継より先に表示します。公開ページに出るまで、検討室の外に出さないでください。
commentary-note-live = 打たれた手をすぐに、観客と同じように表示します。
commentary-note-delayed = 観客と同じ表示です：最新の{ $delay }はまだ表示されません。
commentary-analysis-note = エンジンは観客がすでに見た局面だけを見ています（{ $delay }遅れ）。最新の手にはまだ推定がありません。
delay-moves = { $n }手
delay-moves-one = 1手
delay-min = { $n }分
delay-s = { $n }秒

## 席ごとの出来事の記録（課題31）。審判のみ。不服審査委員会に出すために印刷できる。

incident-title = 出来事の記録
incident-round-title = 第{ $round }回戦 出来事の記録
incident-game = { $table }番席 · 第{ $round }回戦 · 盤 { $board } · 対局 { $game }
incident-players = 黒：{ $black } · 白：{ $white }
incident-void-mark = 無効
incident-board-did = 盤
incident-th-time = 時刻
incident-th-move = 手数
incident-th-what = 出来事
incident-th-by = 対応者
incident-none = 記録すべきことはありません：この対局にアラート、警告、審判の操作はありません。
incident-no-games = この会場にはこの回戦の対局がありません。
incident-print = 印刷
incident-made = 各盤自身の記録と、会場での審判の操作から作成。時刻はこの端末の現地時刻です。
incident-why = 理由：{ $reason }
incident-alert = アラート：{ $what }
incident-restored-pending = { $what }：盤は直されました。警告は保留中で、審判が決めます
incident-restored = { $what }：盤は直されました
incident-confirmed = { $what }：確定
incident-dismissed = { $what }：違反なしで閉じる
incident-warning = { $side }に警告（{ $article }）、この対局で{ $n }回目
incident-warning-given = 審判自身の判断で{ $side }に警告（{ $article }）、この対局で{ $n }回目
incident-withdrawn = { $side }への警告を一つ取り消し、残り{ $n }回
incident-paused = 時計を停止（黒 { $b }、白 { $w }）
incident-resumed = 時計を再開（黒 { $b }、白 { $w }）
incident-clock-set = 時計を設定：黒 { $b }、白 { $w }
incident-restarted = 盤が再起動。{ $since }（UTC）から電源が切れ、時計はその時のまま止まりました
incident-restarted-unknown = 盤が再起動。時計はその時のまま止まりました
incident-late = { $side }が { $late } 遅刻して着席：持ち時間から計 { $taken }（倍）を差し引き、うち着席時に { $deducted }
incident-result = 終局：{ $result }、{ $how }
incident-reopened = 対局を戻しました（元の結果 { $result }）
incident-voided = 対局を無効にしました：結果なし、すべての公開表示から外しました
incident-confirm-result = 結果を確定し成績ファイルに記入：{ $result }
incident-correct-result = 確定した結果を訂正：{ $from } → { $to }
commentary-note-over = 対局は終わりました：すべての手を表示しています。
