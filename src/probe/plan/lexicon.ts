/**
 * The words the call plan reads a class from (`classify.ts`), beside the harm lists of
 * `risk-lexicon.ts`. The two directions are kept apart on purpose:
 *
 * - {@link READ_VERBS} and {@link CREATE_VERBS} are the only words that can make a tool callable.
 *   They hold a verb only where every ordinary sense of it leaves the target as it was (`get`,
 *   `list`, `show`), or makes a new object for the caller alone (`create`, `draft`, `open`). A word
 *   with one harmful sense is left out (`check`: check out; `start`: start a workflow; `upload`,
 *   `submit`, `book`, `issue`, `request`, `run`): a word left out costs a call, never a harm.
 * - The harm lists (`DESTROY`, `LEAD_ONLY`, `MODIFY`, `EXECUTE` there, {@link OUTSIDE_VERBS} here)
 *   need not be complete: a verb in none of the lists is unknown, and the unknown is not called.
 *   They exist so that a sign of harm outweighs a safe word or an annotation (`get_and_delete`,
 *   a false `readOnlyHint: true`).
 *
 * Matching is `risk-lexicon.ts`'s: folded words, `stem*` prefixes, Han/kana/Hangul entries inside
 * a word.
 */

/** Verbs that return something and change nothing, in the languages of `risk-lexicon.ts`. */
// prettier-ignore
export const READ_VERBS: readonly string[] = [
  // English
  'get', 'gets', 'check', 'checks', 'list', 'lists', 'read', 'reads', 'fetch', 'fetches', 'search', 'searches',
  'find', 'finds', 'show', 'shows', 'describe', 'describes', 'lookup', 'view', 'views',
  'count', 'counts', 'preview', 'previews', 'inspect', 'inspects', 'retrieve', 'retrieves',
  'render', 'renders', 'validate', 'validates', 'verify', 'verifies', 'explain', 'explains',
  'summarize', 'summarise', 'summarizes', 'summarises', 'analyze', 'analyse', 'analyzes',
  'analyses', 'compare', 'compares', 'estimate', 'estimates', 'calculate', 'calculates',
  'compute', 'computes', 'convert', 'converts', 'translate', 'translates', 'parse', 'parses',
  'suggest', 'suggests', 'recommend', 'recommends', 'query', 'queries', 'returns', 'browse',
  'browses', 'peek', 'display', 'displays', 'whoami', 'echo', 'echoes', 'simulate',
  'simulates', 'quote', 'quotes', 'forecast', 'forecasts', 'detect', 'detects', 'classify',
  'classifies', 'extract', 'extracts', 'lint', 'lints', 'diff', 'price', 'prices', 'totals',
  'look', 'looks', 'provides', 'gives', 'answers', 'tells', 'reports', 'lookups', 'locate',
  'locates', 'resolve_name', 'autocomplete', 'complete', 'completes', 'measure', 'measures',
  'evaluate_risk', 'tokenize', 'tokenizes', 'info', 'status', 'stats', 'ask', 'asks', 'wait',
  'waits', 'resolves',
  // German
  'hole', 'holen', 'holt', 'abrufen', 'ruft', 'anzeigen', 'zeige', 'zeigt', 'lesen', 'lies',
  'liest', 'suche', 'suchen', 'sucht', 'finde', 'finden', 'findet', 'liste', 'listen',
  'auflisten', 'listet', 'prüfe', 'prüfen', 'prüft', 'ermittle', 'ermitteln', 'ermittelt',
  'berechne', 'berechnen', 'berechnet', 'zähle', 'zählt', 'liefert', 'gibt', 'vorschau',
  'abfragen', 'übersetze', 'übersetzen', 'übersetzt', 'vergleiche', 'vergleicht', 'zeigen',
  'zählen', 'vergleichen', 'durchsuchen', 'durchsucht',
  // French
  'obtenir', 'obtient', 'obtiens', 'lister', 'liste', 'listez', 'lire', 'lit', 'lis',
  'afficher', 'affiche', 'chercher', 'cherche', 'rechercher', 'recherche', 'trouver', 'trouve',
  'consulter', 'consulte', 'voir', 'vérifier', 'vérifie', 'récupérer', 'récupère', 'renvoie',
  'retourne', 'donne', 'calculer', 'calcule', 'aperçu', 'traduire', 'traduit', 'compare',
  // Spanish
  'obtener', 'obtiene', 'obten', 'listar', 'lista', 'enumera', 'leer', 'lee', 'mostrar',
  'muestra', 'buscar', 'busca', 'encontrar', 'encuentra', 'consultar', 'consulta', 'ver',
  'verificar', 'verifica', 'comprobar', 'comprueba', 'recuperar', 'recupera', 'devuelve',
  'calcular', 'calcula', 'traducir', 'traduce',
  // Portuguese
  'obter', 'obtem', 'listar', 'ler', 'mostra', 'exibir', 'exibe', 'procurar', 'procura',
  'retorna', 'devolve', 'traduzir', 'visualizar', 'visualiza', 'simular', 'simula', 'pesquisar',
  'pesquisa', 'pesquise',
  // Italian
  'ottieni', 'ottenere', 'elenca', 'elencare', 'leggi', 'leggere', 'legge', 'mostra',
  'mostrare', 'cerca', 'cercare', 'trova', 'trovare', 'visualizza', 'visualizzare', 'controlla',
  'controllare', 'verificare', 'recuperare', 'restituisce', 'calcola', 'traduci', 'anteprima',
  'calcolare', 'tradurre', 'confronta', 'confrontare',
  // Dutch
  'haal', 'halen', 'haalt', 'ophalen', 'lijst', 'toon', 'tonen', 'toont', 'lees', 'lezen',
  'leest', 'zoek', 'zoeken', 'zoekt', 'vind', 'vinden', 'vindt', 'bekijk', 'bekijken',
  'controleer', 'controleren', 'bereken', 'berekent', 'berekenen', 'geeft', 'opvragen',
  'weergeven', 'vertaal', 'vertaalt', 'vertalen', 'vergelijk', 'vergelijkt', 'vergelijken',
  // Polish
  'pobierz', 'pobiera', 'listuj', 'wylistuj', 'czytaj', 'odczytaj', 'odczytuje', 'pokaż',
  'pokazuje', 'wyświetl', 'wyświetla', 'szukaj', 'wyszukaj', 'wyszukuje', 'znajdź',
  'znajduje', 'sprawdź', 'sprawdza', 'oblicz', 'oblicza', 'zwraca', 'podgląd', 'przetłumacz',
  'porównaj',
  // Russian, Ukrainian
  'получить', 'получи', 'получает', 'список', 'прочитать', 'прочитай', 'читать', 'читает',
  'показать', 'покажи', 'показывает', 'найти', 'найди', 'находит', 'поиск', 'искать', 'ищет',
  'проверить', 'проверь', 'проверяет', 'просмотр', 'посмотреть', 'вывести', 'выводит',
  'возвращает', 'вычислить', 'рассчитать', 'перевести', 'переводит',
  'отримати', 'отримує', 'показати', 'показує', 'знайти', 'пошук', 'переглянути', 'перелік',
  'список', 'прочитати', 'повертає', 'шукати', 'шукає', 'шукай', 'перевірити', 'перевіряє',
  'перевір', 'обчислити', 'обчислює', 'перекласти', 'перекладає',
  // Turkish
  'getir', 'getirir', 'listele', 'listeler', 'oku', 'okur', 'göster', 'gösterir', 'ara',
  'arar', 'bul', 'bulur', 'sorgula', 'sorgular', 'görüntüle', 'görüntüler', 'hesapla',
  'döndürür', 'çevir',
  // Swedish, Danish, Norwegian
  'hämta', 'hämtar', 'visa', 'visar', 'lista', 'listar', 'sök', 'söker', 'läs', 'läser',
  'hent', 'henter', 'vis', 'viser', 'søg', 'søger', 'søk', 'søker', 'læs', 'læser', 'les',
  'leser', 'hitta', 'hittar', 'finn', 'finner', 'finder',
  // Finnish, Czech, Hungarian, Romanian, Hebrew, Hindi, Indonesian
  'megjelenít*', 'megjelenit*', 'listáz*', 'listaz*', 'kilistáz*', 'kilistaz*', 'keres', 'keresés',
  'lekérdez*', 'מציג', 'מחפש', 'מחזיר', 'הצגת', 'חיפוש', 'बताता', 'दिखाता', 'cek', 'tampil*',
  'hae', 'hakee', 'näytä', 'näyttää', 'listaa', 'lue', 'lukee', 'etsi', 'etsii', 'palauttaa',
  'tarkista', 'tarkistaa', 'laske', 'laskee', 'visar', 'hämtar', 'beräkna', 'beräknar',
  'kontrollera', 'returnerar', 'returnerer', 'beregn', 'beregner', 'tjek', 'tjekker', 'sjekk',
  'získat', 'získá', 'zobrazit', 'zobrazí', 'vypsat', 'vypíše', 'najít', 'najde', 'hledat',
  'hledá', 'číst', 'přečíst', 'lekér', 'lekérdez', 'listáz', 'keres', 'megjelenít', 'olvas',
  'obține', 'obtine', 'afișează', 'afiseaza', 'listează', 'listeaza', 'caută', 'cauta',
  'citește', 'citeste',
  // Greek, Indonesian
  'λήψη', 'εμφάνιση', 'εμφανίζει', 'αναζήτηση', 'λίστα', 'ανάγνωση', 'επιστρέφει',
  'ambil', 'mengambil', 'tampilkan', 'menampilkan', 'daftar', 'cari', 'mencari', 'baca',
  'membaca', 'lihat', 'melihat', 'periksa', 'memeriksa', 'mengembalikan', 'hitung',
  'menghitung',
  // Czech, Hungarian, Romanian (imperative, infinitive, 3rd person)
  'zobraz', 'vypiš', 'najdi', 'hledej', 'vyhledej', 'vyhledat', 'vyhledá', 'přečti', 'čte',
  'zkontroluj', 'zkontrolovat', 'zkontroluje', 'vrací', 'vrátí', 'spočítej', 'spočítat',
  'spočítá', 'seznam', 'načti', 'načíst', 'načte',
  'lekéri', 'lekérése', 'kérd le', 'mutasd', 'mutatja', 'megmutat*', 'keres*',
  'olvasd', 'olvassa', 'visszaad*', 'ellenőriz', 'ellenőrizd', 'ellenőrzi', 'kiszámít*',
  'afișa', 'afiseaza', 'afișare', 'căutare', 'citire', 'returnează', 'returneaza', 'verifică',
  'calculează', 'calculeaza', 'arată', 'arata', 'vizualizează', 'vizualizeaza', 'găsește',
  'gaseste', 'găsi', 'gasi',
  // Vietnamese (syllables folded: `tìm kiếm` → `tim kiem`)
  'xem', 'hiển thị', 'danh sách', 'tìm kiếm', 'trả về', 'tra cứu', 'kiểm tra', 'lấy',
  // Arabic, Hebrew, Hindi
  'عرض', 'اعرض', 'جلب', 'احصل', 'بحث', 'ابحث', 'قائمة', 'قراءة', 'اقرأ', 'يعرض', 'يجلب',
  'يبحث', 'يعيد', 'يقرأ',
  'הצג', 'קבל', 'חפש', 'רשימת', 'קרא', 'הצגה', 'קריאת', 'שליפת', 'שלוף', 'בדוק', 'בדיקת',
  'מחשב', 'חשב', 'רשימה',
  'देखें', 'दिखाएं', 'दिखाएँ', 'दिखाता', 'दिखाती', 'दिखाओ', 'खोजें', 'खोजता', 'खोजती',
  'खोजो', 'सूची', 'पढ़ें', 'पढ़ता', 'पढ़ती', 'प्राप्त', 'बताता', 'बताती', 'बताएं', 'बताएँ', 'बताओ',
  'देता', 'देती', 'जांचें', 'जाँचें', 'जांचता', 'dikhao', 'dekho', 'batao', 'khojo', 'padho',
  // Japanese
  'shutoku', 'ichiran', 'kensaku', 'hyouji', 'hyoji', 'kakunin', 'sanshou', 'sansho',
  'shoukai', 'shokai', 'etsuran', '取得', '一覧', '検索', '表示', '確認', '参照', '閲覧', '照会',
  '見る', '調べ', '計算', '翻訳', 'プレビュー',
  // Chinese
  '获取', '獲取', '查询', '查詢', '列出', '搜索', '搜尋', '查看', '显示', '顯示', '读取', '讀取',
  '查找', '列表', '预览', '預覽', '计算', '計算', '翻译', '翻譯',
  // Korean
  '조회', '목록', '검색', '보기', '가져오', '읽기', '확인', '미리보기', '계산', '번역',
];

/** Verbs that make a new object for the caller alone (nothing existing changes, nobody else is reached). */
// prettier-ignore
export const CREATE_VERBS: readonly string[] = [
  // English
  'create', 'creates', 'new', 'make', 'makes', 'open', 'opens', 'draft', 'drafts', 'plan',
  'plans', 'prepare', 'prepares', 'compose', 'composes', 'generate', 'generates', 'init',
  'initialize', 'initialise', 'mint', 'mints', 'export', 'exports', 'duplicate', 'clone',
  'fork', 'copy', 'register', 'registers', 'jot', 'begin', 'spawn_draft', 'build_report',
  'bookmark', 'sketch',
  // German
  'erstelle', 'erstellen', 'erstellt', 'anlegen', 'lege an', 'entwirf', 'entwerfen',
  'exportiere', 'exportieren', 'exportiert', 'generiere', 'generieren', 'generiert',
  // French
  'créer', 'crée', 'créez', 'ouvrir', 'ouvre', 'rédiger', 'exporter', 'exporte', 'générer',
  'génère',
  // Spanish, Portuguese, Italian
  'crear', 'crea', 'cree', 'abrir', 'abre', 'redactar', 'exportar', 'exporta', 'generar',
  'genera', 'criar', 'cria', 'gerar', 'gera', 'creare', 'aprire', 'apri', 'esporta',
  'esportare', 'generare',
  // Dutch, Polish, Russian, Ukrainian, Turkish
  'aanmaken', 'maak', 'maakt', 'creëer', 'creëert', 'creëren', 'genereer', 'genereert',
  'genereren', 'exporteer', 'exporteren', 'utwórz', 'tworzy', 'stwórz', 'generuj',
  'wygeneruj', 'eksportuj', 'создать', 'создай', 'создаёт', 'создает', 'сгенерировать',
  'экспортировать', 'створити', 'створює', 'oluştur', 'oluşturur',
  // Nordic, Finnish, Czech, Hungarian, Romanian, Greek, Indonesian, Vietnamese
  'skapa', 'skapar', 'opret', 'opretter', 'opprett', 'oppretter', 'luo', 'luo uusi', 'vytvořit',
  'vytvoří', 'létrehoz', 'létrehozása', 'creează', 'creeaza', 'δημιουργία', 'δημιουργεί',
  'buat', 'membuat', 'tạo',
  'vytvoř', 'založ', 'založit', 'založí', 'létrehoz*', 'hozd létre', 'hozz létre', 'készít*',
  'creare', 'generează', 'genereaza', 'tạo mới', 'luo', 'luodaan', 'generoi',
  // Arabic, Hebrew, Hindi
  'أنشئ', 'إنشاء', 'ينشئ', 'צור', 'יצירת', 'יוצר', 'בנה', 'बनाएं', 'बनाएँ', 'बनाता', 'बनाती',
  'बनाओ', 'बनाना', 'banao',
  // Japanese, Chinese, Korean
  'sakusei', '作成', '新規', '创建', '新建', '建立', '생성', '만들',
];

/**
 * Verbs that reach beyond the server's own store or other people, beyond those of
 * `risk-lexicon.ts`: the ones a scan called before because it did not know them.
 */
// prettier-ignore
export const OUTSIDE_VERBS: readonly string[] = [
  'approv*', 'reject*', 'launch*', 'run', 'runs', 'rerun*', 'upload*', 'settl*', 'escalat*',
  'page', 'pages', 'paging', 'text', 'texts', 'call', 'calls', 'trigger*', 'submit*',
  'request', 'requests', 'redeem*', 'promot*', 'releas*', 'ship', 'ships', 'schedul*', 'book',
  'books', 'booking', 'reserv*', 'issue', 'issues', 'issuing', 'initiat*', 'checkout',
  'import', 'imports', 'sync', 'syncs', 'transmit*', 'e-mail', 'ping',
  'pings', 'alert', 'alerts', 'enqueue*', 'queue', 'dispatch*', 'order', 'orders', 'upgrad*',
  'downgrad*', 'renew*', 'subscrib*', 'top', 'donate*', 'tip', 'tips', 'invoice', 'bill',
  'bills', 'assign*', 'join', 'joins', 'leave', 'leaves', 'execute*',
  'exec', 'refill', 'refills',
  // Nordic, Finnish, Czech, Hungarian, Romanian, Greek, Indonesian, Vietnamese, Arabic, Hebrew,
  // Hindi: upload, run, order, share, invite, approve
  'ladda upp', 'kör', 'köra', 'kör', 'dela', 'upload', 'kør', 'køre', 'del', 'lataa',
  'suorita', 'jaa', 'nahraj', 'nahrát', 'spusť', 'spustit', 'objednej', 'objednat', 'sdílej',
  'feltölt*', 'futtat*', 'megrendel*', 'rendeld', 'oszd meg', 'megoszt*', 'jóváhagy*',
  'încarcă', 'incarca', 'rulează', 'ruleaza', 'rulează', 'plasează', 'plaseaza', 'partajează',
  'aprobă', 'aproba', 'ανέβασμα', 'εκτέλεση', 'παραγγελία', 'unggah', 'mengunggah',
  'jalankan', 'menjalankan', 'pesan', 'memesan', 'bagikan', 'setujui', 'tolak', 'undang',
  'tải lên', 'chạy', 'đặt hàng', 'chia sẻ', 'phê duyệt', 'رفع', 'تشغيل', 'شغل', 'اطلب',
  'مشاركة', 'שתף', 'הזמן', 'העלה', 'הפעל', 'אשר', 'अपलोड', 'चलाएं', 'चलाएँ', 'ऑर्डर', 'साझा',
];

/** Words after a verb that make a phrasal verb of it: `check out`, `sign up`, `top up`. */
export const PARTICLES: ReadonlySet<string> = new Set(
  'up out in off on over down back through away'.split(' '),
);

/**
 * Verbs whose phrasal forms do something else than the verb alone (`check` reads, `check out`
 * pays): followed by a particle, such a verb is unknown unless the phrase itself is listed.
 */
export const PHRASAL_HEADS: ReadonlySet<string> = new Set(
  'check checks sign signs log logs top tops cash pay give hand turn shut back pick bring wipe clean set'.split(
    ' ',
  ),
);

/**
 * Nouns that say a name reports something when they end it (`release_status`, `call_log`,
 * `text_summary`): read there only, never as a name's first word.
 */
export const READ_TAILS: readonly string[] = [
  'info',
  'status',
  'stats',
  'summary',
  'overview',
  'details',
  'history',
  'log',
  'logs',
  'report',
  'balance',
  'count',
  'metrics',
  'usage',
  'health',
  'version',
  'list',
  'preview',
  'lookup',
  'search',
  'forecast',
  'quote',
  'totals',
  'state',
  'screenshot',
  'snapshot',
  // The same nouns in other languages (overview, forecast, search, details, summary)
  'übersicht',
  'uebersicht',
  'prognose',
  'prognos',
  'översikt',
  'oversigt',
  'oversikt',
  'yhteenveto',
  'haku',
  'tiedot',
  'přehled',
  'áttekintés',
  'előrejelzés',
  'részletek',
  'prognoză',
  'rezumat',
  'istoric',
  'overzicht',
  'podsumowanie',
  'resumen',
  'riepilogo',
  'स्थिति',
  'विवरण',
  'सारांश',
  'इतिहास',
];

/**
 * Harmful verbs that are as often the noun a name reports on (`run_history`, `page_list`,
 * `invoice_summary`, `sync_status`, `orderstatus`): before one of {@link READ_TAILS}, and only
 * there, the name reads. A verb that is rarely a noun keeps its act (`update_status`,
 * `approve_report`, `submit_report` change or send).
 */
export const NOUN_VERBS: ReadonlySet<string> = new Set(
  (
    'run runs page pages invoice invoices sync order orders call calls text texts queue ' +
    'release releases import imports booking bookings issue issues alert alerts bill bills ' +
    'ping job jobs tip tips archive archives ऑर्डर'
  ).split(' '),
);

/**
 * Nouns that say a name reports something when they open it, as languages that put the head noun
 * first write it (`detailObjednavky`, `detaliiComanda`, `historial_pedidos`): the mirror of
 * {@link READ_TAILS}. They make a name read only when nothing else in it says harm.
 */
export const READ_HEADS: ReadonlySet<string> = new Set(
  (
    'detail details detaily podrobnosti detalii detaliile detalle detalles details dettagli ' +
    'detalhes prehled historie historial istoric historique storico historico informace ' +
    'informatii informacion informazioni informacoes resumen rezumat riepilogo resume stav ' +
    'starea estado stato etat'
  ).split(' '),
);

/**
 * Reader and creator verbs of a language that puts the verb last, in a name as in a sentence
 * (Turkish `urun_ara`, `siparis_bul`, `kitap_oku`): at the end of a name they are its verb however
 * short (a short last word of another language is too often a noun to count).
 */
export const VERB_LAST: ReadonlySet<string> = new Set(
  'ara bul oku getir listele goster sorgula hesapla goruntule cevir olustur'.split(' '),
);

/** First words of a name that ask a question (`is_deleted`, `has_cancelled_orders`): it reads. */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'is has was can should does did are'.split(' '),
);

/**
 * Verbs that reach others as a name's verb (`call_customer`, `page_oncall`, `text_owner`) but in a
 * description are mostly nouns or speak of tools (`call this tool`, `the page`).
 */
export const NAME_ONLY: ReadonlySet<string> = new Set(
  'call calls page pages text texts'.split(' '),
);

/**
 * What a send or a request may carry that only asks the user (`sends an elicitation request`):
 * after a harmful verb, one of these makes it harmless.
 */
export const ASKING_OBJECTS: ReadonlySet<string> = new Set(
  'elicitation elicitations question questions form forms prompt prompts confirmation'.split(' '),
);

/**
 * What a created object may be that reaches other people the moment it exists (an issue, a pull
 * request, a comment, a post): `create_issue` reaches outside.
 */
export const SHARED_OBJECTS: ReadonlySet<string> = new Set(
  (
    'issue issues pull merge request requests pr mr comment comments post posts message ' +
    'messages review reviews invitation invitations invite invites branch branches tweet ' +
    'tweets email emails announcement announcements'
  ).split(' '),
);

/**
 * Words that open a noun phrase: a verb-like word right after one is a noun (`its charges`,
 * `the comments`, `a post`).
 */
export const DETERMINERS: ReadonlySet<string> = new Set(
  (
    'the a an its their his her our your my these those each every all any some no ' +
    'of for with by per from about on in into at as than ' +
    'der die das den dem des ein eine einen einem einer seine ihre ihren unsere von mit fur ' +
    'le la les un une des du de au aux son sa ses leur leurs votre vos ' +
    'el los las unos unas su sus del al con por para ' +
    'o os um uma seu sua seus suas do da dos das ' +
    'il lo gli uno della dei delle suoi ' +
    'het een zijn haar hun van met voor'
  ).split(' '),
);

/** Words after which the next word is a verb (`is charged`, `will send`, `to delete`). */
export const VERB_OPENERS: ReadonlySet<string> = new Set(
  (
    'is are be being will would shall should can could may might must ' +
    'gets get got to also then and or it this tool which that ' +
    'wird werden wurde kann soll est sont sera es son sera e sono sara wordt worden'
  ).split(' '),
);

/**
 * Function words of the languages the lexicon reads (folded): two of one language say a
 * description is written in it (`plan/agreement.ts`), and so that its words can agree with an
 * annotation.
 */
// prettier-ignore
export const FUNCTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  en: 'the a an of in on for to with by from and or is are its this that it as at into per'.split(' '),
  de: 'der die das den dem des ein eine einen einem einer und oder mit von fur auf im zu ist sind nach aus'.split(' '),
  fr: 'le la les un une des du de et ou avec pour dans sur par est sont au aux'.split(' '),
  es: 'el la los las un una unos unas del de y o con para por en es son al'.split(' '),
  pt: 'o a os as um uma do da dos das de e ou com para por em no na'.split(' '),
  it: 'il lo la gli le un una uno del della dei delle di e o con per in su al'.split(' '),
  nl: 'de het een van en of met voor in op is zijn naar uit'.split(' '),
  pl: 'i w z na do dla oraz lub jest sa od po'.split(' '),
  sv: 'och en ett i pa for med av till ar den det'.split(' '),
  da: 'og en et i pa for med af av til er den det'.split(' '),
  fi: 'ja tai on ovat seka kanssa'.split(' '),
  cs: 'a v na pro s se z do je jsou nebo'.split(' '),
  ro: 'si sau cu din in la pe de un o este sunt'.split(' '),
  id: 'dan atau yang di ke dari untuk dengan adalah ini itu'.split(' '),
  tr: 've veya bir ile icin bu'.split(' '),
};

/** Articles and possessives: a word followed by one is a verb with its object (`Bumps the …`). */
export const ARTICLES: ReadonlySet<string> = new Set(
  (
    'the a an its their his her our your my these those each every all any some ' +
    'der die das den dem des ein eine einen einem einer le la les un une el los las una ' +
    'o os um uma il lo gli uno het een ett'
  ).split(' '),
);

/**
 * Verbs that keep what they are given: a new object (`Save a text snippet.`) or over an existing
 * one. They create only when the description gives them a new object ({@link NEW_OBJECT}) and says
 * nothing of an existing one ({@link EXISTING}); a verb that reaches others or spends (`file`,
 * `book`, `upload`, `send`) is never one of them.
 */
// prettier-ignore
export const STORING_VERBS: readonly string[] = [
  'save', 'saves', 'store', 'stores', 'speichere', 'speichern', 'speichert', 'enregistrer',
  'enregistre', 'sauvegarder', 'sauvegarde', 'guardar', 'guarda', 'salvar', 'salva', 'salvare',
  'memorizza', 'opslaan', 'sla op', 'zapisz', 'spara', 'sparar', 'gem', 'gemme', 'lagre', 'lagrer',
  'tallenna', 'ulož', 'uložit', 'uloží', 'mentsd', 'mentse', 'salvează', 'simpan', 'menyimpan',
  'kaydet', 'сохранить', 'сохрани', 'сохраняет', 'зберегти', 'зберігає',
];

/** Words that give a verb a new object: an indefinite article, `new`. */
export const NEW_OBJECT: ReadonlySet<string> = new Set(
  (
    'a an new ein eine einen neue neuen neues un une nouveau nouvelle uno una nuevo nueva um uma ' +
    'novo nova nuovo nuova een nieuwe nieuw ett en ny nytt nya uusi nowa nowy nowe novy novou ' +
    'uj egy yeni baru новый новую новое новий нову'
  ).split(' '),
);

/** Words that say a storing verb acts on what exists: it writes, it does not create. */
export const EXISTING: ReadonlySet<string> = new Set(
  (
    'existing overwrite overwrites overwriting replace replaces replacing current same update ' +
    'updates bestehend bestehende vorhandene vorhandenen existant existante existente esistente ' +
    'bestaande existerande eksisterende olemassa olevan existujici mevcut существующий'
  ).split(' '),
);
