# ハブの会場リンク画面（hall/src/venues/venues.html）。中継ディレクター向け。

venues-docTitle = tengen ハブ：会場
venues-title = 会場：ハブとのリンク
venues-overview = 全対局
venues-explain = 各会場のホールとブローカーが、その会場の碁盤をこのハブへ送ります。ハブはすべてのイベントを番号で確かめ、リンクで失われたものは会場に再送を求めます。正常：欠けなし。遅延：会場にあるイベントをハブがまだ取り寄せ中。断：会場からしばらく何も届いていません。会場の審判コンソールはそのまま動き、リンクが戻ればハブが追いつきます。
venues-venue = 会場
venues-link = リンク
venues-boards = 碁盤
venues-hall = 会場ホール
venues-filled = 再送を求めたイベント
venues-live = リンクで届いたイベント
venues-loading = 読み込み中…
venues-up = 正常
venues-lagging = { $n } イベント遅延
venues-waiting = { $n } 面のイベントを取り寄せ中
venues-down = 断
venues-downSince = { $time } から断
venues-unknown = まだ応答なし
venues-bridgeLost = ブリッジが接続断を報告
venues-hallSilent = 応答なし
venues-hallHeard = 応答あり
venues-updated = { $time } 更新
venues-unreachable = ハブが応答しません。
