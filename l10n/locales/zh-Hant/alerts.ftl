# 提示：每個代碼一個標題和一句給裁判的話，註明條款與應核對的事項。
# 措辭依照《中國圍棋競賽規則》原文（見 docs/languages.md），用語依臺灣習慣（棋鐘、伺服器、網路）。

alert-article = 第{ $a }條
alert-article-clause = 第{ $a }條第{ $c }款
alert-uncaptured_stones = 未提或漏提無氣之子
alert-uncaptured_stones-check = 第18條第2款、第22條第6款：下子後，未提或漏提對方無氣之子；包含提子的著手，必須全部提清之後方可按鐘。請核對盤上的無氣之子：判未提、漏提者警告一次並提取無氣之子。
alert-wrong_capture = 誤提有氣之子
alert-wrong_capture-check = 第18條第1款：下子後，誤提對方有氣之子。請核對被提之子：判誤提者警告一次，將有氣之子放回原處。
alert-stone_moved = 棋子移動
alert-stone_moved-check = 第17條第5款：發現前面下的棋子已有移動。在雙方意見一致的前提下，將移動之子挪回原處；如有故意移子的證據，應判移子者為負。
alert-takeback = 悔棋
alert-takeback-check = 第17條第3款：棋子離手，表示著子權完成；完成著子權後，再將棋子拿起下在別處，稱為悔棋。發生悔棋時，由對方於下一手著手之前向裁判提出方為有效。請核對：悔棋無效，判棋子放回原處，並警告一次。
alert-double_move = 連下兩著
alert-double_move-check = 第17條第2款：一方並未表示棄權，另一方連下兩著。請核對：判第二著無效並警告一次。
alert-wrong_color = 拿錯黑白棋
alert-wrong_color-check = 第17條第1款：開賽後拿錯黑白棋。在第10手之前（含）允許改正；超過10手棋之後，一律不予改正。
alert-suicide = 禁著點
alert-suicide-check = 第19條：棋子下在禁著點上，判著手無效，棄權一次。禁著點（第5條）：某方下子後，該子立即呈無氣狀態，同時又不能提取對方的棋子。
alert-ko = 提劫未找劫材
alert-ko-check = 第18條第3款：劫爭須找劫材時未找而提劫。請核對：判提劫之手無效，棄權一次並警告一次。
alert-superko = 全局同形再現
alert-superko-check = 第20條：全局同形再現原則上必須禁止（第6條：著子後不得使對方重複面臨曾出現過的局面）。請核對全局同形；三劫循環、四劫循環、長生等罕見特例，可按比賽的補充規定判無勝負、和棋或加賽。
alert-clock_before_move = 著子前按鐘
alert-clock_before_move-check = 第17條第4款：須於著子之後才能按鐘。著子之前或與著子同時按鐘的，判警告一次，不改變棋鐘讀數。
alert-board_disturbed = 棋局散亂
alert-board_disturbed-check = 第17條第6款：棋局散亂。經復盤，如雙方達成一致意見，應按復盤次序繼續比賽；棋盤的紀錄即可用於復盤。
alert-time_expired = 超時
alert-time_expired-check = 第22條第5款：讀秒至最後1分鐘超時而未著子。原則上應按判負裁決；經讀秒方申請，也可視為放棄著手權使用虛著，改判棄權一次，允許續弈，繼續實施原先讀秒方式。
alert-time_expired-check-12-4 = 第12條第4款：包乾用時制是規定基本時限之內必須結束比賽的計時辦法，超時判負。本局不設讀秒，不能改判棄權一次（第22條第5款只適用於讀秒）。
alert-time_expired-check-12-5 = 第12條第5款：定時限步制，用完基本時限後，限在規定時間之內著完規定的步數；本時段未著完規定的步數而超時。第22條第5款的棄權一次只適用於讀秒，原則上應按超時判負裁決。
alert-mismatch = 棋盤與紀錄不符
alert-mismatch-check = 棋盤上的棋子與對局紀錄不符，且不屬於任何一條規定的情形。請對照紀錄核對棋盤並恢復原狀。
alert-board_restarted = 對局中棋盤重新啟動
alert-board_restarted-check = 第22條第8款：對局中棋盤曾斷電或重新啟動，棋鐘按當時讀數停止。請與雙方核對已用時間，再恢復棋鐘；單方面的時間讀數改撥，須經裁判長的認可。
alert-board_offline = 棋盤離線
alert-board_offline-check = 賽場伺服器已收不到這個棋盤的訊號。請到該桌查看電源和網路；棋手的棋鐘可能已停止。
alert-storage_low = 棋盤儲存空間將滿
alert-storage_low-check = 棋盤仍在記錄，但剩餘空間不多。請清理其儲存空間。
alert-storage_full = 棋盤儲存空間已滿
alert-storage_full-check = 棋盤無法寫入事件；對局繼續，事件暫存於記憶體。請立即清理其儲存空間。

## 硬體故障

fault-link_lost = 感測器連線中斷
fault-stuck = 感測器卡住
fault-noisy = 感測器讀數不穩
fault-wrong_size = 收到其他路數棋盤的掃描
fault-board_offline = 棋盤離線
fault-storage_low = 棋盤儲存空間將滿
fault-storage_full = 棋盤儲存空間已滿
alert-absent = 棋手遲到未入座
alert-absent-check = 第22條第1款：比賽開始時，棋手遲到不得超過1小時（含），超過這一時限判負。請核對後記錄對方不戰而勝，或棋手在場時撤銷。
alert-absent-check-22-2 = 第22條第2款：賽場和住地基本上同在一處的，比賽開始時棋手遲到不得超過15分鐘，超過這一時限判負。請核對後記錄對方不戰而勝，或棋手在場時撤銷。
alert-absent-check-22-3 = 第22條第3款：雙方遲到應分別處理，直至判雙方負。雙方到時限仍未入座：請記錄雙方負，或棋手在場時撤銷。
alert-absent-check-22-4 = 第22條第4款：快棋比賽中棋手遲到，實施按時缺席讀秒；讀秒過程告終，棋手即自動失去該局參賽資格。請記錄對方不戰而勝，或棋手在場時撤銷。
