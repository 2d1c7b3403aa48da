/**
 * The words that say a tool does harm (the call plan's harm lists: `plan/classify.ts` reads them;
 * the words that can make a tool callable are in `plan/lexicon.ts`), in the languages tool authors
 * write in most:
 * English, German, French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Turkish,
 * Japanese (kana/kanji and romaji), Chinese (simplified and traditional) and Korean; and, so that a
 * harmful verb beside a safe one wins in the languages `plan/lexicon.ts` reads too, Swedish,
 * Danish, Norwegian, Finnish, Czech, Hungarian, Romanian, Greek, Indonesian, Vietnamese, Arabic,
 * Hebrew and Hindi (their common forms; Arabic verbs as stems, for the pronouns they take). This is the
 * one hand-written list of harm; `plan/` holds the rules that read it (`classify.ts` decides).
 *
 * How an entry matches (after folding, see `words.ts`: lower case, no diacritics, `ß` → `ss`):
 * - `word`: the whole word, or, in a glued name (`deleteall`, `kontoloeschen`), its start or its
 *   end when it is at least 4 letters long;
 * - `stem*`: any word that starts with the stem (`delet*`: delete, deletes, deleted, deletion), and
 *   a glued name that ends in the stem plus a short inflection (`kontoloesch*` + `en`);
 * - an entry in Han, kana or Hangul: anywhere inside a word of that script (those scripts write no
 *   spaces: `删除记录`, `予約取り消し`, `계정삭제`).
 * An entry with a German umlaut also matches its transliteration (`lösch*` → `loesch*`).
 *
 * Sources: the verb forms are the infinitive, imperative, 3rd-person and noun forms listed in the
 * English, German, French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Turkish, Japanese,
 * Chinese and Korean Wiktionary entries of each English verb's translation table (delete, remove,
 * cancel, send, pay, …); the user-interface terms are those of the Microsoft Terminology
 * Collection's and the Unicode CLDR's translations of the same commands (Delete, Cancel, Send,
 * Update, Settings, Search), which is how software in those languages names them; romaji follow
 * Hepburn, with and without long-vowel `u` (`koushin`, `koshin`). Stems were cut where the
 * Wiktionary inflection table of the verb shares them and no common word of the same language
 * does (`terminat*`, not `termin*`: terminal; exact `pagar`, not `pag*`: page).
 *
 * Before adding a word, add a declaration to `test/probe/data/tool-plan-corpus.json` that needs it, and
 * one that must stay callable despite it; the corpus test prints every disagreement.
 */

/** Verbs that destroy, undo, end, spend, publish or reach other people: anywhere in a name. */
// prettier-ignore
export const DESTROY: readonly string[] = [
  // English
  'delet*', 'remov*', 'destroy*', 'destruct*', 'drop', 'drops', 'dropped', 'dropping', 'erase*',
  'purge*', 'wipe', 'wipes', 'wiped', 'wiping', 'truncat*', 'cancel*', 'revok*', 'revoc*',
  'terminat*', 'kill', 'kills', 'killed', 'killing', 'send', 'sends', 'sending', 'publish*',
  'unpublish*', 'notify', 'notifies', 'notified', 'notifying', 'pay', 'pays', 'paid', 'paying',
  'payment', 'payments', 'payout*', 'charge', 'charges', 'charged', 'charging', 'transfer*',
  'refund*', 'deploy*', 'undeploy*', 'merge', 'merges', 'merged', 'merging', 'overwrit*',
  'reset', 'resets', 'resetting', 'ban', 'bans', 'banned', 'banning', 'unban*',
  'withdraw*', 'shutdown', 'uninstall*', 'unlink*', 'disabl*', 'deactivat*', 'rm',
  'rmdir', 'expung*', 'shred*', 'flush*', 'discard*', 'evict*', 'suspend*', 'unregister*',
  'deregister*', 'unsubscrib*', 'purchas*', 'buy', 'buys', 'buying', 'bought', 'checkout',
  'rollback*', 'revert*', 'restor*', 'invite', 'invites', 'inviting', 'broadcast*', 'tweet',
  'retweet*', 'dm', 'sms', 'forward', 'forwards', 'reboot*', 'restart*', 'stop', 'stops',
  'abort*', 'void', 'voids', 'voided', 'annul*', 'obliterat*', 'nuke*', 'eliminat*', 'clear',
  'clears', 'cleared', 'clearing', 'empty', 'empties', 'emptied', 'emptying', 'close',
  'closes', 'closing', 'block', 'blocks', 'blocked', 'kick', 'kicks', 'kicked', 'expel*',
  'unfollow*', 'unshare*', 'dispatch*', 'wire', 'executes',
  // German
  'lösch*', 'entfern*', 'vernicht*', 'zerstör*', 'leeren', 'leert', 'storn*', 'abbrech*',
  'abbruch', 'kündig*', 'widerruf*', 'sperr*', 'beend*', 'senden', 'sende', 'sendet',
  'versend*', 'verschick*', 'schick*', 'überweis*', 'bezahl*', 'zahlung*', 'erstatt*',
  'rückerstatt*', 'veröffentlich*', 'posten', 'benachrichtig*', 'überschreib*', 'zurücksetz*',
  'bereitstell*', 'zusammenführ*', 'verwerf*', 'deaktivier*', 'abmeld*', 'kauf*', 'bestell*',
  'tilg*', 'vergess*', 'archivier*', 'ausschließ*', 'einladen', 'lade ein', 'teilen',
  'stopp*', 'anhalten', 'schließ*', 'aufheb*',
  // French
  'supprim*', 'suppression', 'efface*', 'effacer', 'détrui*', 'annul*', 'révoqu*', 'résili*',
  'vider', 'videz', 'purger', 'envoy*', 'envoi', 'publier', 'publie', 'publiez', 'publié*',
  'payer', 'paye', 'payez', 'paiement*', 'rembours*', 'transfér*', 'virement*', 'déploy*',
  'déploie*', 'fusionn*', 'écras*', 'réinitialis*', 'bannir', 'bloquer', 'bloque',
  'désactiv*', 'désinscri*', 'fermer', 'fermez', 'tuer', 'arrêter', 'retirer', 'retire',
  'enlever', 'enlève', 'acheter', 'achète', 'notifier', 'partager', 'inviter', 'détruire',
  'clôturer', 'clôture',
  // Spanish
  'elimin*', 'borrar', 'borra', 'borre', 'borrado', 'borrados', 'borrando', 'anul*',
  'revocar', 'revoca', 'destruir', 'destruye', 'vaciar', 'vacía', 'vacíe', 'purgar',
  'enviar', 'envía', 'envíe', 'enviado', 'enviando', 'publicar', 'publique', 'publicado',
  'pagar', 'paga', 'pague', 'pagado', 'reembols*', 'transferir', 'transfiere', 'desplegar',
  'despliega', 'despliegue', 'fusionar', 'fusiona', 'sobrescrib*', 'restablec*', 'reinici*',
  'cerrar', 'cierra', 'cierre', 'terminar', 'termina', 'matar', 'expulsar', 'banear',
  'bloquear', 'bloquea', 'desactivar', 'desactiva', 'retirar', 'retira', 'quitar', 'quita',
  'comprar', 'compra', 'notificar', 'notifica', 'compartir', 'invitar', 'dar de baja',
  'darse de baja', 'suprimir',
  // Portuguese
  'excluir', 'exclui', 'exclua', 'excluído', 'exclusão', 'apagar', 'apaga', 'apague',
  'apagado', 'remover', 'remove', 'cancelar', 'esvazi*', 'limpar', 'limpa', 'limpe',
  'envie', 'enviar', 'publicar', 'pague', 'pagar', 'pagamento*', 'transferência',
  'reembolso', 'implantar', 'mesclar', 'sobrescrev*', 'redefinir', 'redefine', 'fechar',
  'fecha', 'encerrar', 'encerra', 'banir', 'desativar', 'desativa', 'notificar', 'comprar',
  'compartilhar', 'convidar', 'destruir', 'descartar', 'descarta',
  // Italian
  'eliminare', 'elimina', 'cancellare', 'cancella', 'cancellato', 'cancellazione',
  'rimuov*', 'rimoss*', 'rimozione', 'annull*', 'revoc*', 'distrugg*', 'svuot*', 'purgare',
  'inviare', 'invia', 'inviato', 'invio', 'pubblicare', 'pubblicato', 'pagare', 'paga',
  'pagamento', 'trasferi*', 'rimbors*', 'sovrascriv*', 'reimpost*', 'chiudi', 'chiudere',
  'terminare', 'termina', 'uccid*', 'bannare', 'blocca', 'bloccare', 'disattiv*', 'ritira',
  'ritirare', 'acquista', 'acquistare', 'notifica', 'notificare', 'condividi', 'condividere',
  'invita', 'invitare', 'scarta', 'scartare', 'svuota',
  // Dutch
  'verwijder*', 'wissen', 'wis', 'wist', 'annuleer*', 'annuleren', 'intrekken', 'trek in',
  'vernietig*', 'legen', 'leegmaken', 'maak leeg', 'verstuur*', 'versturen', 'verzend*',
  'stuur', 'sturen', 'publiceer*', 'publiceren', 'betaal*', 'betalen', 'betaling*',
  'overmaken', 'overboek*', 'terugbetal*', 'samenvoeg*', 'overschrijf*', 'overschrijv*',
  'sluit', 'sluiten', 'beëindig*', 'doden', 'blokkeer*', 'blokkeren', 'deactiveer*',
  'opzeggen', 'zeg op', 'kopen', 'koop', 'uitnodig*', 'verban*', 'afsluit*', 'stopzett*',
  // Polish
  'usuń', 'usun*', 'usuw*', 'skasuj*', 'kasuj*', 'skasow*', 'anuluj*', 'anulow*', 'odwołaj*',
  'odwołan*', 'cofnij', 'zniszcz*', 'opróżnij', 'opróżni*', 'wyczyść', 'wyczyszcz*', 'wyślij',
  'wysyła*', 'wysłan*', 'opublikuj*', 'publikuj*', 'zapłać', 'zapłac*', 'płatność*', 'przelew*',
  'zwróć', 'zwrot', 'wdróż', 'wdroż*', 'scal', 'scalić', 'nadpisz*', 'nadpis*', 'zresetuj*',
  'resetuj*', 'zamknij', 'zamyka*', 'zakończ*', 'zabij', 'zablokuj*', 'blokuj*', 'dezaktywuj*',
  'wyłącz*', 'kup', 'kupić', 'powiadom*', 'udostępnij*', 'zaproś', 'zbanuj*', 'wyrzuć',
  // Russian
  'удал*', 'стереть', 'сотри', 'стира*', 'уничтож*', 'очист*', 'отмен*', 'отозвать', 'отзови',
  'аннулир*', 'прекрат*', 'убить', 'убей', 'отправ*', 'послать', 'пошли', 'опубликов*',
  'публиков*', 'оплат*', 'заплат*', 'перечисл*', 'возврат*', 'развернуть', 'разверни',
  'слить', 'слей', 'объедин*', 'перезапис*', 'сброс*', 'закрыть', 'закрой', 'закрыва*',
  'заблокир*', 'блокир*', 'забан*', 'деактивир*', 'отключ*', 'купить', 'купи', 'уведом*',
  'поделиться', 'пригласи*', 'выгнать', 'исключ*', 'останов*', 'стоп',
  // Ukrainian
  'видал*', 'вилуч*', 'скасув*', 'надісл*', 'надсила*', 'відправ*', 'сплат*',
  // Turkish
  'sil', 'siler', 'silme', 'silmek', 'silin', 'silindi', 'siliniz', 'kaldır*', 'iptal*',
  'yok et', 'temizle*', 'boşalt*', 'gönder*', 'yayınla*', 'öde', 'ödeme*', 'havale*', 'iade*',
  'dağıt', 'birleştir*', 'üzerine yaz', 'sıfırla*', 'kapat*', 'sonlandır*', 'öldür*',
  'yasakla*', 'engelle*', 'devre dışı', 'satın al', 'bildir*', 'paylaş*', 'davet et',
  'durdur*', 'feshet*',
  // Japanese (romaji, Hepburn with and without long vowels)
  'sakujo', 'shoukyo', 'shokyo', 'torikeshi', 'torikesu', 'torikeshite', 'kaijo', 'haki',
  'kaiyaku', 'taikai', 'shiharai', 'shiharau', 'soukin', 'sokin', 'henkin', 'soushin', 'soshin',
  'okuru', 'toukou', 'toko', 'kyanseru', 'uwagaki', 'shokika', 'shokika', 'shuuryou',
  'shuryo', 'teishi', 'kounyuu', 'konyu', 'chuumon', 'chumon', 'furikomi', 'kesu', 'keshite',
  'massho', 'jokyo', 'haishin', 'tsuuchi', 'tsuchi', 'kokai', 'koukai', 'dipuroi', 'maaji',
  // Japanese (kana, kanji)
  '削除', '消去', '取り消', '取消', '解除', '破棄', '解約', '退会', '抹消', '除去', '消す',
  '消し', '支払', '送金', '返金', '決済', '送信', '送る', '投稿', '公開', '配信', '通知', '上書',
  '初期化', 'リセット', 'デプロイ', 'マージ', 'プッシュ', 'キャンセル', '終了', '停止', '無効化',
  '購入', '注文', '振込', '振替', '削っ', 'クリア', '空にする', '破壊', '送付',
  // Chinese (simplified, traditional)
  '删除', '删掉', '移除', '清空', '清除', '取消', '撤销', '撤回', '注销', '销毁', '作废', '终止',
  '杀死', '发送', '发布', '推送', '支付', '付款', '转账', '退款', '扣款', '部署', '合并', '覆盖',
  '重置', '封禁', '禁用', '关闭', '购买', '下单', '分享', '刪除', '刪掉', '撤銷', '註銷', '銷毀',
  '終止', '發送', '發布', '轉帳', '合併', '覆蓋', '重設', '關閉', '購買', '清除', '移除',
  '退訂', '退订', '解绑', '解綁', '踢出', '拉黑',
  // Korean
  '삭제', '제거', '지우', '지워', '취소', '철회', '해지', '탈퇴', '파기', '비우', '초기화', '전송',
  '보내', '발송', '게시', '게재', '결제', '지불', '송금', '이체', '환불', '배포', '병합', '덮어쓰',
  '종료', '중지', '차단', '비활성화', '구매', '공유', '초대', '강퇴', '해제', '폐기',  // Swedish, Danish, Norwegian
  'radera*', 'ta bort', 'tabort', 'avbryt*', 'skicka*', 'betala*', 'publicera*', 'avsluta*',
  'töm', 'tömma', 'köp', 'köpa', 'köper', 'slet', 'slette', 'sletter', 'slett', 'fjern*',
  'annuller*', 'afbryd*', 'sende', 'betal', 'publicer*', 'overfør*', 'överför*',
  // Finnish
  'poist*', 'peruuta*', 'peru', 'lähetä', 'lähettää', 'lähettä*', 'maksa', 'maksaa', 'maksu*',
  'julkaise*', 'tyhjennä', 'osta', 'ostaa', 'sulje', 'sulkee',
  // Czech
  'smaž', 'smazat', 'smaže', 'smazání', 'odstraň', 'odstranit', 'odstraní', 'zruš*',
  'odeslat', 'odešli', 'odešle', 'pošli', 'poslat', 'pošle', 'zaplať', 'zaplatit', 'zaplatí',
  'platba', 'publikov*', 'koupit', 'kup', 'kupte', 'zavřít', 'zavři', 'vyprázdni*',
  // Hungarian
  'töröl*', 'törlés*', 'törli', 'töröld', 'eltávolít*', 'visszavon*', 'lemond*', 'küld*',
  'elküld*', 'fizet*', 'kifizet*', 'közzétesz', 'közzététel*', 'tedd közzé', 'vásárol*',
  'megvásárol*', 'bezár*', 'leállít*', 'kiürít*', 'utal*', 'átutal*',
  // Romanian
  'șterge', 'sterge', 'șterg*', 'sterg*', 'ștergere', 'elimina', 'elimină', 'anulează',
  'anuleaza', 'anula', 'anulare', 'trimite', 'trimit*', 'plătește', 'plati', 'plată', 'plateste',
  'publică', 'cumpără', 'cumpara', 'închide', 'inchide', 'golește', 'goleste', 'transferă',
  // Greek
  'διαγραφή', 'διάγραψε', 'διαγράφει', 'διαγρα*', 'αφαίρεση', 'αφαιρεί', 'ακύρωση', 'ακύρωσε',
  'ακυρώνει', 'αποστολή', 'αποστολ*', 'στείλε', 'στέλνει', 'πληρωμή', 'πληρώνει', 'πλήρωσε',
  'δημοσίευση', 'δημοσιεύει', 'αγορά', 'αγόρασε',
  // Indonesian
  'hapus', 'menghapus', 'dihapus', 'batal*', 'membatalkan', 'kirim', 'mengirim', 'mengirimkan',
  'dikirim', 'bayar', 'membayar', 'pembayaran', 'terbitkan', 'menerbitkan', 'beli', 'membeli',
  'tutup', 'menutup', 'kosongkan', 'transfer',
  // Vietnamese (syllables folded: `xóa` → `xoa`)
  'xóa', 'xoá', 'xóa bỏ', 'hủy', 'hủy bỏ', 'gửi', 'thanh toán', 'đăng bài', 'mua', 'đóng',
  'chuyển tiền', 'chuyển khoản',
  // Arabic
  'حذف*', 'احذف*', 'يحذف*', 'إزالة', 'أزل*', 'يزيل*', 'إلغاء', 'ألغ*', 'يلغي*', 'إرسال', 'أرسل*',
  'يرسل*', 'دفع', 'ادفع', 'يدفع', 'نشر', 'انشر*', 'ينشر*', 'شراء', 'اشتر*', 'إغلاق', 'تحويل',
  // Hebrew
  'מחק', 'מוחק', 'מחיקת', 'מחיקה', 'הסר', 'הסרת', 'בטל', 'ביטול', 'מבטל', 'שלח', 'שליחת',
  'שולח', 'שלם', 'תשלום', 'משלם', 'פרסם', 'פרסום', 'מפרסם', 'קנה', 'רכישת', 'רכוש', 'סגור',
  'העבר כסף', 'רוקן',
  // Hindi (Devanagari and romanised)
  'हटाएं', 'हटाएँ', 'हटाता', 'हटाती', 'हटाना', 'हटाओ', 'मिटाएं', 'मिटाएँ', 'मिटाता', 'मिटाना',
  'रद्द', 'भेजें', 'भेजता', 'भेजती', 'भेजना', 'भेजो', 'भुगतान', 'प्रकाशित', 'खरीदें', 'खरीदता',
  'खरीदना', 'बंद', 'hatao', 'hataen', 'mitao', 'bhejo', 'bhejen', 'bhejna', 'radd', 'khareedo',
  'kharido',
];

/**
 * Nouns that are also verbs of the same kind (`post`, `message`, `email`, `push`): a verb only as
 * the first or last word of a name, or the first word of a clause (`message_user`, `post_update`,
 * "Posts a message"), not inside (`get_message`, `list_posts`).
 */
// prettier-ignore
export const LEAD_ONLY: readonly string[] = [
  'post', 'posts', 'message', 'messages', 'email', 'emails', 'mail', 'mails', 'push', 'pushes',
  'reply', 'respond', 'comment', 'comments',
  'order', 'dial', 'share', 'sign', 'signs',
  'lock', 'locks', 'unlock', 'unlocks', 'vote', 'follow', 'subscribe', 'subscribes',
  'mute', 'unmute', 'pin', 'unpin', 'star', 'unstar', 'enroll', 'enrol', 'grant', 'grants',
  'mailen', 'poste', 'postet', 'posta', 'postar', 'postear', 'publica',
];

/** Verbs of an ordinary user's change: destructive too, unless the tool's annotations clear it. */
// prettier-ignore
export const MODIFY: readonly string[] = [
  // English
  'updat*', 'modif*', 'set', 'sets', 'edit', 'edits', 'editing', 'change', 'changes',
  'changing', 'rename*', 'move', 'moves', 'moving', 'replac*', 'patch', 'patches', 'patching',
  'assign*', 'unassign*', 'reassign*', 'enabl*', 'toggl*', 'install*', 'upgrad*', 'downgrad*', 'write',
  'writes', 'writing', 'mutat*', 'alter', 'alters', 'upsert*', 'configure', 'configures',
  'apply', 'applies', 'commit', 'commits', 'rewrite*', 'rotate', 'rotates', 'migrat*',
  'archiv*', 'unarchiv*',
  // German
  'aktualisier*', 'ändern', 'ändert', 'änderung*', 'setzen', 'setzt', 'bearbeit*', 'verschieb*',
  'umbenenn*', 'ersetz*', 'aktivier*', 'install*', 'schreib*', 'festleg*', 'einstellen',
  'anpass*', 'zuweis*', 'verlänger*',
  // French
  'mettre à jour', 'met à jour', 'mise à jour', 'mettreajour', 'modifi*', 'changer',
  'change', 'éditer', 'édite', 'définir', 'définit', 'renommer', 'déplacer', 'remplacer',
  'activer', 'installer', 'écrire', 'attribuer', 'configurer',
  // Spanish
  'actualiz*', 'modific*', 'cambiar', 'cambia', 'editar', 'edita', 'establecer', 'establece',
  'renombrar', 'mover', 'mueve', 'reemplazar', 'reemplaza', 'activar', 'instalar',
  'escribir', 'asignar', 'configurar',
  // Portuguese
  'atualiz*', 'alterar', 'altera', 'definir', 'define', 'renomear', 'substituir', 'ativar',
  'instalar', 'escrever', 'atribuir',
  // Italian
  'aggiorn*', 'modifica', 'modificare', 'cambiare', 'impostare', 'imposta', 'rinomin*',
  'spostare', 'sposta', 'sostitu*', 'attivare', 'attiva', 'installare', 'scrivere',
  'assegna', 'assegnare',
  // Dutch
  'bijwerk*', 'werk bij', 'wijzig*', 'aanpass*', 'pas aan', 'instellen', 'stel in',
  'hernoem*', 'verplaats*', 'vervang*', 'activeer*', 'installeer*', 'schrijf', 'schrijven',
  'toewijz*',
  // Polish
  'aktualizuj*', 'zaktualizuj*', 'zmień', 'zmien*', 'edytuj*', 'ustaw', 'ustawić', 'ustawia', 'ustaw*',
  'przenieś', 'przenies*', 'zastąp', 'zastap*', 'aktywuj*', 'zainstaluj*', 'zapisz', 'przypisz',
  // Russian
  'обнов*', 'измен*', 'редактир*', 'установ*', 'включить', 'включи', 'настроить', 'настрой', 'задать', 'задай', 'перемест*', 'переименов*',
  'замен*', 'активир*', 'записать', 'запиши', 'назнач*', 'настро*',
  // Ukrainian
  'онов*', 'змін*', 'редагу*', 'відредагу*',
  // Turkish
  'güncelle*', 'değiştir*', 'düzenle*', 'ayarla*', 'taşı', 'yeniden adlandır', 'etkinleştir*',
  'kur', 'yaz', 'ata',
  // Japanese
  'koushin', 'koshin', 'henkou', 'henko', 'settei', 'henshuu', 'henshu', 'idou', 'ido',
  'okikae', 'yuukouka', 'yukoka', 'kakikomi', '更新', '変更', '設定', '編集', '移動',
  '置換', '有効化', '書き込', '書込', '適用', '登録変更',
  // Chinese
  '修改', '更改', '设置', '編輯', '编辑', '移动', '移動', '替换', '替換', '启用', '啟用', '写入',
  '寫入', '设定', '更新',
  // Korean
  '업데이트', '갱신', '수정', '변경', '편집', '설정', '이동', '교체', '활성화', '쓰기',  // Swedish, Danish, Norwegian
  'uppdatera*', 'ändra*', 'redigera*', 'flytta*', 'byt namn', 'ersätt*', 'skriv', 'skriva',
  'spara*', 'opdater*', 'oppdater*', 'ændr*', 'endre', 'endrer', 'rediger*', 'flyt', 'flytt',
  'flytte', 'gem', 'gemme', 'lagre', 'lagrer',
  // Finnish
  'päivitä', 'päivittää', 'päivitys', 'muokkaa', 'muokkaus', 'muuta', 'muuttaa', 'siirrä',
  'siirtää', 'tallenna', 'tallentaa', 'kirjoita', 'aseta',
  // Czech
  'uprav*', 'změň', 'změnit', 'změní', 'změna', 'aktualizov*', 'aktualizuje', 'přesuň',
  'přesunout', 'přesune', 'ulož', 'uložit', 'uloží', 'zapiš', 'zapsat', 'zapíše', 'nastav*',
  'přejmenov*',
  // Hungarian
  'frissít*', 'módosít*', 'szerkeszt*', 'áthelyez*', 'mozgat*', 'ment', 'mentés', 'mentse',
  'mentsd', 'átnevez*', 'beállít*', 'ír', 'írd', 'írja', 'felülír*', 'cserél*',
  // Romanian
  'actualizează', 'actualizeaza', 'actualizare', 'editează', 'editeaza', 'editare', 'mută',
  'muta', 'mutare', 'salvează', 'salveaza', 'salvare', 'salva', 'redenumește', 'redenumeste',
  'scrie', 'setează', 'seteaza', 'înlocuiește', 'inlocuieste',
  // Greek
  'ενημέρωση', 'ενημερώνει', 'ενημέρωσε', 'επεξεργασία', 'επεξεργάσου', 'τροποποίηση',
  'αλλαγή', 'άλλαξε', 'μετακίνηση', 'αποθήκευση', 'αποθήκευσε', 'μετονομασία',
  // Indonesian
  'perbarui', 'memperbarui', 'ubah', 'mengubah', 'diubah', 'sunting', 'pindahkan',
  'memindahkan', 'simpan', 'menyimpan', 'ganti', 'mengganti', 'atur', 'mengatur',
  // Vietnamese
  'cập nhật', 'sửa', 'chỉnh sửa', 'thay đổi', 'di chuyển', 'lưu', 'đổi tên', 'ghi',
  // Arabic
  'تحديث', 'حدث', 'يحدث', 'تعديل', 'عدل', 'يعدل', 'تغيير', 'غير', 'نقل', 'انقل', 'حفظ', 'احفظ',
  'يحفظ', 'إعادة تسمية',
  // Hebrew
  'עדכן', 'עדכון', 'מעדכן', 'ערוך', 'עריכת', 'עורך', 'שנה', 'שינוי', 'העבר', 'העברת', 'שמור',
  'שמירת', 'שומר', 'כתוב',
  // Hindi
  'अपडेट', 'बदलें', 'बदलता', 'बदलती', 'बदलना', 'बदलो', 'संपादित', 'सहेजें', 'सहेजता', 'सहेजना',
  'badlo', 'badlen', 'sahejo',
];

/** Words of a name or description that say the tool runs commands, code or queries. */
// prettier-ignore
export const EXECUTE: readonly string[] = [
  'shell', 'bash', 'zsh', 'powershell', 'pwsh', 'cmd', 'terminal', 'exec', 'execute*',
  'execution', 'eval', 'evaluate', 'evaluates', 'subprocess', 'spawn*', 'interpreter', 'repl',
  'sql', 'sqlite', 'postgres', 'postgresql', 'mysql', 'psql', 'cypher', 'sparql', 'graphql',
  'python', 'javascript', 'nodejs', 'ruby', 'perl', 'php', 'lua', 'jupyter', 'notebook_cell',
  'curl', 'wget', 'crawl*', 'scrape*', 'scraping', 'webhook*', 'ssh', 'sudo', 'applescript',
  'osascript', 'docker', 'kubectl', 'ansible', 'terraform',
  // German, French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Turkish
  'befehl*', 'kommando*', 'ausführ*', 'führe aus', 'commande*', 'exécut*', 'ejecut*',
  'comando*', 'execut*', 'esegui*', 'uitvoer*', 'voer uit', 'opdracht*', 'polecen*', 'wykonaj*',
  'wykonuj*', 'команд*', 'выполн*', 'исполн*', 'komut*', 'çalıştır*', 'skript*', 'script*',
  'сценари*', 'скрипт*',
  // Japanese, Chinese, Korean
  'コマンド', '実行', 'スクリプト', 'シェル', 'jikkou', 'jikko', '命令', '执行', '執行', '脚本',
  '指令', '명령', '실행', '스크립트', '셸', '쉘',
];

/**
 * Names of a parameter that takes a command, code, a query, a location the server will open or
 * fetch, or a file path: the whole name, its last word (`shell_command`, `targetUrl`), or, for
 * the unambiguous ones, any word of it.
 */
// prettier-ignore
export const RISKY_PARAMETER: {
  readonly command: readonly string[];
  readonly code: readonly string[];
  readonly query: readonly string[];
  readonly url: readonly string[];
  readonly path: readonly string[];
} = {
  command: [
    'command', 'commands', 'cmd', 'cmdline', 'commandline', 'shell', 'argv', 'exec',
    'befehl', 'kommando', 'commande', 'comando', 'opdracht', 'polecenie', 'команда', 'komut',
    'コマンド', '命令', '指令', '명령', '명령어',
  ],
  code: [
    'code', 'script', 'scripts', 'program', 'expression', 'expr', 'eval', 'snippet_code',
    'source_code', 'sourcecode', 'js', 'python', 'javascript', 'lua', 'skript', 'codigo',
    'codice', 'kod', 'код', 'скрипт', 'コード', 'スクリプト', '代码', '代碼', '脚本', '코드',
    '스크립트', 'formula', 'template_code', 'lambda', 'function_body',
  ],
  query: [
    'sql', 'query_sql', 'sqlquery', 'statement', 'cypher', 'sparql', 'graphql', 'dsl',
    'abfrage', 'requete', 'consulta_sql', 'zapytanie', 'запрос', 'sorgu', 'クエリ', '쿼리',
    '查询语句', 'where', 'filter_expression',
  ],
  url: [
    'url', 'urls', 'uri', 'uris', 'href', 'link', 'links', 'endpoint', 'endpoints', 'webhook',
    'callback', 'host', 'hostname', 'website', 'address_url', 'enlace', 'lien', 'collegamento', 'ссылка', 'bağlantı', 'リンク',
    '链接', '網址', '网址', '링크', 'feed', 'proxy', 'redirect', 'source_url',
  ],
  path: [
    'path', 'paths', 'file', 'files', 'filename', 'filenames', 'filepath', 'dir', 'dirs',
    'directory', 'directories', 'folder', 'folders', 'cwd', 'workdir', 'location_path',
    'mount', 'glob', 'pfad', 'datei', 'dateien', 'verzeichnis', 'ordner', 'chemin', 'fichier',
    'dossier', 'répertoire', 'ruta', 'archivo', 'carpeta', 'caminho', 'arquivo', 'pasta',
    'percorso', 'cartella', 'pad', 'bestand', 'ścieżka', 'plik', 'путь', 'файл', 'папка', 'dosya', 'klasör', 'dizin', 'パス', 'ファイル', 'フォルダ',
    'ディレクトリ', '路径', '路徑', '文件', '檔案', '目录', '目錄', '경로', '파일', '폴더',
    '디렉터리',
  ],
};

/** Of {@link RISKY_PARAMETER}, the words that still say it as the last word of a longer name. */
// prettier-ignore
export const RISKY_PARAMETER_SUFFIXES: readonly string[] = [
  'command', 'cmd', 'commandline', 'script', 'sql', 'url', 'urls', 'uri', 'href', 'endpoint',
  'webhook', 'path', 'paths', 'filename', 'filepath', 'directory', 'folder', 'query', 'pfad', 'datei', 'fichier', 'chemin', 'ruta', 'archivo', 'caminho',
  'arquivo', 'percorso', 'bestand', 'plik', 'путь', 'файл', 'dosya', 'befehl', 'komut',
  'commande', 'comando',
];

/**
 * Phrases of a parameter's or a tool's description that give a slot a dangerous role (folded,
 * matched on the folded text; any of them is enough).
 */
// prettier-ignore
export const RISKY_PHRASES: readonly RegExp[] = [
  /\b(shell|bash|terminal|system|os|cli) (command|commands|script)\b/u,
  /\b(command|commands|script|code|program|query|sql) to (run|execute|evaluate|eval)\b/u,
  /\bruns? (a |an |the |any |arbitrary |given )?(shell |system |terminal |python |js |javascript )?(commands?|scripts?|code|programs?|binar(y|ies)|quer(y|ies)|sql)\b/u,
  /\bexecutes? (a |an |the |any |arbitrary |given )?/u,
  /\beval(uate|uates|uating)? (a |an |the |any |arbitrary )?(expressions?|code|javascript|python|snippets?)\b/u,
  /\b(sql|cypher|sparql|graphql)\b/u,
  /\bquer(y|ies) (against |on |over )?(a |the )?(database|db|table|index)\b/u,
  /\b(url|uri|address|link|page|website|feed|endpoint|resource) (to |that the server will |the server will |we will |it will )?(fetch|download|crawl|scrape|request|call|open|visit|load|import|read)\b/u,
  /\b(fetch|fetches|download|downloads|crawl|crawls|scrape|scrapes|visit|visits|open|opens|load|loads|import|imports) (from )?(a |an |the |any |this |given )?(remote )?(url|uri|web ?page|website|link|address|endpoint|feed)\b/u,
  /\bwebhook\b/u,
  /\b(path|paths) (to|of) (a |an |the )?(local )?(file|directory|folder)\b/u,
  /\b(file|directory|folder) (path|name|on disk|on the (host|server|machine))\b/u,
  /\b(read|reads|write|writes|open|opens|list|lists|delete|deletes|edit|edits) (a |an |the |any )?(local )?(files?|director(y|ies)|folders?) (on|from|in) (disk|the (host|server|machine|filesystem))\b/u,
  /\bfile ?system\b/u,
  /\b(befehl|kommando|shell-befehl) (ausfuhren|ausfuhrt)\b/u,
  /\b(commande|commande shell) a executer\b/u,
  /\b(comando|consulta sql) (a |para )?ejecutar\b/u,
  /\b(dateipfad|pfad zur datei|chemin du fichier|ruta del archivo|caminho do arquivo|percorso del file)\b/u,
  /(コマンド|スクリプト|命令|脚本|명령|스크립트)(を|이|를|을)?(実行|执行|執行|실행)/u,
  /(ファイル|文件|檔案|파일)(の)?(パス|路径|路徑|경로)/u,
];

/** Words before a verb that negate it (`never deletes`, `löscht nichts`, `ne supprime pas`). */
// prettier-ignore
export const NEGATIONS: readonly string[] = [
  'not', 'never', 'no', 'without', "doesn't", "don't", "won't", 'nothing', 'none', 'cannot',
  'nicht', 'nie', 'niemals', 'kein', 'keine', 'keinen', 'nichts', 'ohne', 'ne', 'pas',
  'jamais', 'sans', 'aucun', 'aucune', 'rien', 'nunca', 'sin', 'ningun', 'ninguno', 'nada',
  'jamas', 'nao', 'sem', 'nenhum', 'non', 'mai', 'senza', 'nessun', 'nulla', 'niente', 'niet',
  'nooit', 'zonder', 'geen', 'niets', 'nigdy', 'bez', 'не', 'никогда', 'без', 'ничего', 'ни',
  'degil', 'asla', 'hicbir', 'hic', 'olmadan',
  'inte', 'aldrig', 'utan', 'ikke', 'aldri', 'uden', 'ei', 'ilman', 'ne', 'nikdy', 'nem',
  'soha', 'nélkül', 'nu', 'niciodată', 'fără', 'δεν', 'χωρίς', 'tidak', 'tanpa', 'bukan',
  'không', 'chưa', 'لا', 'بدون', 'לא', 'ללא', 'बिना', 'नहीं', 'कभी',
];

/** Negation marks of the unspaced scripts, before (`不删除`) or after (`削除しない`, `삭제하지 않`) a verb. */
// prettier-ignore
export const NEGATION_BEFORE_CJK: readonly string[] = ['不', '没', '沒', '未', '非', '无', '無', '勿', '别'];
// prettier-ignore
export const NEGATION_AFTER_CJK: readonly string[] = [
  'しない', 'しません', 'せず', 'されない', 'されません', 'ない', 'ません', '않', '없', '못',
];

/** Words that join two clauses: the verb after one starts a new clause (`get and delete`). */
// prettier-ignore
export const CONJUNCTIONS: readonly string[] = [
  'and', 'then', 'also', 'or', 'und', 'dann', 'sowie', 'oder', 'et', 'puis', 'ensuite', 'ou',
  'y', 'luego', 'e', 'depois', 'poi', 'quindi', 'o', 'dan', 'daarna', 'i', 'oraz',
  'potem', 'lub', 'и', 'затем', 'потом', 'или', 'і', 'й', 'та', 'або', 'потім', 've', 'sonra', 'ardindan', 'veya',
  'och', 'eller', 'og', 'eller', 'ja', 'sekä', 'tai', 'nebo', 'pak', 'és', 'majd', 'vagy',
  'și', 'apoi', 'sau', 'και', 'ή', 'atau', 'lalu', 'kemudian', 'và', 'hoặc', 'rồi', 'و', 'ثم',
  'أو', 'או', 'ואז', 'और', 'फिर', 'या',
];

/** Description phrases that say an effect cannot be undone (folded). */
// prettier-ignore
export const IRREVERSIBLE: readonly RegExp[] = [
  /\bpermanently\b/u,
  /\birreversib/u,
  /\bcan ?n[o']t be (undone|reversed|recovered)\b/u,
  /\bunwiderruflich|\bendgultig|\bdauerhaft (ge)?losch/u,
  /\bdefinitivement\b|\birreversible/u,
  /\bpermanentemente\b|\bde forma permanente\b|\bdefinitivamente\b|\birreversivel/u,
  /\bonherroepelijk|\bdefinitief\b/u,
  /\bnieodwracaln|\btrwale (usun|skasow)/u,
  /\bбезвозвратн|\bнеобратим/u,
  /\bkalici olarak\b|\bgeri alinamaz/u,
  /元に戻せ|復元できません|不可恢复|无法恢复|無法恢復|无法撤销|無法撤銷|不可撤销|永久删除|永久刪除|되돌릴 수 없|복구할 수 없|영구(적으로)? 삭제/u,
];
