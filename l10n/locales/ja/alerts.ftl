# アラート：コードごとに見出しと、審判が読む一文（条文と確認すべきこと）。警告は罰則（第24条）。
# 条文は中国囲碁競技規則による（docs/languages.md）。

alert-article = 第{ $a }条
alert-article-clause = 第{ $a }条第{ $c }項
alert-uncaptured_stones = 取るべき石が盤上に残っている
alert-uncaptured_stones-check = 第18条第2項・第22条第6項：着手後、相手の呼吸点のない石を取らなかった、または取り残した。石を取る着手は、すべて取り終えてから時計を押すこと。呼吸点のない石を確認し、取り残した側に警告一回、その石を取り上げる。
alert-wrong_capture = 呼吸点のある石を取った
alert-wrong_capture-check = 第18条第1項：着手後、呼吸点の残る相手の石を誤って取った。その石を元の位置に戻し、誤って取った側に警告一回。
alert-stone_moved = 盤上の石が動いた
alert-stone_moved-check = 第17条第5項：すでに打たれた石が動いているのが見つかった。双方の合意のもとで元の位置に戻す。故意に動かした証拠があれば、動かした側の負け。
alert-takeback = 待った
alert-takeback-check = 第17条第3項：石が手を離れた後、その石を取り上げて別の所に打った（待った）。相手が次の手を打つ前に審判に申し出た場合に限り有効。待ったは無効、石を元の位置に戻し、警告一回。
alert-double_move = 二手続けて打った
alert-double_move-check = 第17条第2項：相手がパスしていないのに、一方が二手続けて打った。二手目は無効、警告一回。
alert-wrong_color = 石の色の取り違え
alert-wrong_color-check = 第17条第1項：対局開始後、黒白の石を取り違えた。第10手目まで（10手目を含む）は訂正できる。それ以降は一切訂正しない。
alert-suicide = 着手禁止点
alert-suicide-check = 第19条：着手禁止点に打った。着手は無効、手番を一回失う。着手禁止点（第5条）：打った石に呼吸点がなく、相手の石も取れない点。
alert-ko = コウの即時取り返し
alert-ko-check = 第18条第3項：コウ材を打たずにすぐコウを取り返した。その着手は無効、手番を一回失い、警告一回。
alert-superko = 全局同形の再現
alert-superko-check = 第20条：全局同形の再現は原則として禁止（第6条：着手によって相手に以前と同じ局面を再び生じさせてはならない）。全局同形を確認する。三コウ・四コウ・長生などのまれな特例は、大会の補則により無勝負・持碁・打ち直しとすることができる。
alert-clock_before_move = 着手前に時計を押した
alert-clock_before_move-check = 第17条第4項：時計は着手の後に押すこと。着手前または着手と同時に押した場合、警告一回。時計の表示は変えない。
alert-board_disturbed = 盤面が乱れた
alert-board_disturbed-check = 第17条第6項：盤上の石が散乱した。双方が合意すれば、並べ直した順で対局を続ける。盤の記録で並べ直せる。
alert-time_expired = 時間切れ
alert-time_expired-check = 第22条第5項：秒読みの最後の1分で時間切れとなり、着手しなかった。原則は負け。秒読みされた側の申し出により、着手権を放棄したパスとみなして手番を一回失うこととし、同じ秒読みで対局を続けることもできる。
alert-time_expired-check-12-4 = 第12条第4項：切れ負けは持ち時間内に対局を終えなければならない方式で、時間切れは負け。秒読みがないので、パス扱いにはできない（第22条第5項は秒読みの場合のみ）。
alert-time_expired-check-12-5 = 第12条第5項：カナダ式で、規定の時間内に規定の手数を打ち終えなかった。第22条第5項のパス扱いは秒読みの場合のみで、原則は時間切れ負け。
alert-mismatch = 盤面が棋譜と異なる
alert-mismatch-check = 盤上の石が棋譜と異なり、どの条文にも当たらない。棋譜と盤面を照らし合わせて元に戻す。
alert-board_restarted = 対局中に盤が再起動した
alert-board_restarted-check = 第22条第8項：対局中に盤の電源が切れたか再起動し、時計はその時点の表示で止まっている。双方の消費時間を確認してから時計を再開する。一方だけの時間の修正には審判長の承認が必要。
alert-board_offline = 盤がオフライン
alert-board_offline-check = 会場のサーバーがこの盤からの信号を受信していない。その席へ行き、電源とネットワークを確認する。対局時計が止まっている可能性がある。
alert-storage_low = 盤の記憶領域が残りわずか
alert-storage_low-check = 盤はまだ記録しているが、長くはもたない。記憶領域の空きを増やすこと。
alert-storage_full = 盤の記憶領域がいっぱい
alert-storage_full-check = 盤がイベントを書き込めなかった。対局は続き、イベントはメモリで待機している。すぐに記憶領域の空きを増やすこと。

## 機器の故障

fault-link_lost = センサーとの接続が切れた
fault-stuck = センサーが固着している
fault-noisy = センサーの値が不安定
fault-wrong_size = 別の路数の盤のスキャン
fault-board_offline = 盤がオフライン
fault-storage_low = 盤の記憶領域が残りわずか
fault-storage_full = 盤の記憶領域がいっぱい
