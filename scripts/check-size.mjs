// src/ may not grow (issue 29, "smaller, not bigger"): every line of every .ts file under src/,
// blank lines and comments included, against a budget that only ever goes down. Lower BUDGET when
// a change makes src/ smaller; the goal is 11,600. Raised for issue 31's pace (the room issue 29 left
// it under the goal), and again past the goal in its seventeenth pass: the shards' rota and the window
// hold (+155 lines in pace.ts, 46 taken out elsewhere). The eighteenth pass's size pass paid the 112
// back outside pace.ts (long messages and arguments named before the one call that takes them, types
// named once), so the budget is at the goal again, but for one line: take()'s least wait for the rota
// (the eighteenth pass's rota rules for shards left alone were tried and not kept). The nineteenth
// pass's size pass took 31 more out the same way (room it had made for F1's trial, taken out again):
// 30 under the goal. The twentieth pass went past it again, for contract breaks found by its audits:
// Parquet id columns sent exactly (+41), a .zst walked frame by frame (+64), a later part checked and
// damage midway ending as a stop (+73), the rota's judge of its own turns (+26), the progress line cut to
// the terminal (+19) and smaller fixes (+87), against a size pass outside src/batch (-67). The twenty-first:
// a signal on a big file keeps 100,000 unread rows at most and prints a command for the rest (+34); a damage stop
// annotated in Actions (+2); a file behind stdin stopped as a named file is (+15); a lost output says nothing stands
// where printing was all (+3); NDJSON members --columns names checked first (+18); foreign files, subfolders, manifests
// (+27); ids that hold escapes shown quoted (+3); a Parquet value column that is no number refused (+7); pzstd (+2);
// rest files named by shard (+1); a replayed row keeps its part's line (+3); the step summary names rows not read (+2);
// Parquet cut too under a journal (+4); cli21's help and usage words (-2); `trigger version` pointed to --version (+2);
// batch --dry-run without key or base URL (+2); a JSON array given as NDJSON refused (+8);
// sigaudit21's four: a rest tested whole first, ./-named rests, unreadable rows sharded by text, one drain wait (+15).
// The twenty-first pass's size pass (size21) took 174 out without a change in behaviour: one-line doc comments trailing
// their fields and constants (-92), doc comments said in one line (-51), the rota's and a descent's types named once
// (-23), a failed row's text made only where kept, and smaller code in client.ts and lock.ts (-8). The twenty-second: prose
// comments rewrapped to the 140 columns prettier allows, words unchanged (-112); the pace's relay left on told slots and the
// hold counted in round trips among shards (+7); --after-line and every rest command reading its file (+8); a dry run and
// a group's help typo named (+11); --json written together (+14); a failed file in an input folder refused (+10); the journal
// keeps a damaged file's rest command for its refusals (+9); a rest's journal named by its file's folder too (+4); a .gz read
// member by member, every row before trailing garbage sent (+56); CR-only CSV read (+4); a Parquet struct's field named (+9); its
// summary line for trailing garbage (+3); a failed file refused beside any other input, not only in a folder (+6).
// The twenty-third: a push-back to the start after one accepted late, on a path that bunched them, is not news (+8); --from,
// a batch read from a file of its inputs on, in their reading order, recorded by the journal (from23, +10); a stopped
// folder's rest printed as the folder --from the part it stopped in, not every later part by name (from23, +3); --columns
// value=value must be in the file (inputs23, +1); a .zst's trailing bytes named as a .gz's (inputs23, +16); a CR ending a
// pipe's first write waits for the next byte (inputs23, +5); the summary names zstd's trailing bytes as zstd's (+1); a session
// bus that takes the connection and never answers no longer hangs every keychain command for good: asked first (audit23, +28);
// a journal or failed file locked by the file it names through symbolic links, and a failed file's link kept (audit23, +21);
// the kept start of a line over 1 MiB never sent by a replay (audit23, +5); an https:// proxy's failed handshake named with the
// service, and no DEP0123 warning for a proxy named by its IP (audit23, +16); a UTF-16 input's iconv command names its file (+8);
// a refused certificate's hint checks the NODE_EXTRA_CA_CERTS file when it is set (audit23, +6); catalog keys one text
// written two ways (NFC) refused (audit23, +16); a broken config file's hint moves it aside, not deletes it (audit23, +3).
// size23 took 54 out: comments said in fewer lines (-30), six one-line helpers as arrow constants (-12), status, shared, retry, batch (-12).
// An answer that did not come whole said as such, not "cannot reach" (audit23, +1); --json's rows never sent say recorded "no" (+1);
// an NDJSON member read that is in its object twice makes the row invalid, not the last one silently sent (audit23, +20);
// review23: every bus address asked in order (+10), a member name written with escapes is the same name (+1).
// size24 took 146 out: one-expression helpers as arrow constants (-34), comments trailing or said shorter (-37), types named once (-15),
// early returns, arguments named before the one call that takes them and smaller code (-60).
// The twenty-fourth (trust24): a CSV row whose quote never closes kept as its fields and read back as the same invalid row (+16);
// a journal or failed file locked by its device and inode too, so that a hard link to a held one is refused (+27); batch --json:
// a row an earlier run left of unknown outcome says recorded "unknown", an invalid row's value a number or null (+11); the trailing
// bytes of a .zst or .gz judged by one function of their own, out of zstdFrames' loop (+3). The lead: a file's rows kept after a
// signal are those read within 250 ms too (a --json stop took 0.97 s; +2); a trusted certificate for another host is named so,
// with its names, not as one to trust (review23, +11); an answer cut short after its status says so, not "before it answered" (+6);
// batch --help names Parquet, .gz/.zst and folders, with an export's and a shard's example (+3). audit24: a Parquet page that cannot
// be read after rows were sent stops the batch as a .gz cut short does, a codec this Node lacks is refused as the file opens, an id
// that is not UTF-8 makes its row invalid (+18).
// size24b took 108 out of batch, lock, atomic-write: exports made private (-19), arrow helpers (-18), comments (-10), smaller code (-61).
// audit24: --journal/--failed naming a folder, a file in the way or a loop of links is exit 2 in words, not 70; one column for two
// --columns roles refused; a failed file that could not be written under a journal prints the --resume (+29).
// fix24a: the library refuses an id that is no string, and a missing key or base URL, as a UsageError (audit24, +10); the exit-70
// line names where to report, one function the Action uses too (+3); the library's timeoutMs a day at most, a bigint value sent (+3),
// a library caller's bad value named value, not --value (+1).
// review24: the lock by inode in this user's own folder (0700), not /tmp, and a lock's temporary file never made through a link
// planted at its name (+10). audit24: a rest's --after-line <n>:<check> holds the file to the rows read up to n, a changed one refused;
// a journal made by a run refused before a row settled is not left behind (+49); a journal refusing another input no longer
// says "name a new --journal", which sent the accepted rows again, but where the rows not accepted are (+2). review24: a 4xx or 503
// whose body was cut short is that refusal, not "outcome unknown" (+2). audit24: a Node without zstd's hint decompresses in place
// (a folder's part) or in the pipe (standard input), not `zstd -dc F | trigger batch -` (+2); 408 is named Request Timeout (+1).
// review24b: a rest whose journal name is taken (a file damaged twice) takes the next, not a loop of printed commands (+4); a
// column --columns takes from the user's or trigger's role is said so (+6); a URL object as the library's baseUrl (+1). The lead:
// a CSV row's error column read only when there is one (fields[-1] on every row cost 0.09 us; +1); a Parquet id not UTF-8 said by
// one object its reader made, not a closure made per row (-6).
// fix25b: a damage's "stopping" line names no failed file, which a run refused then never makes (review24b F2, +1); a Parquet row whose
// id is not UTF-8 kept with its text, U+FFFD for the bad bytes, not as `t,,,` (+1); a refusal
// cut short says so, a close after the status line is not "before it answered", a time-out after an answer began is not "no response" (+8).
// A user's own CSV error column read as data: a failed file told by its first error, a kept row with its user only by its open quote (+3);
// a lock's temporary file at a name nobody can foresee, so another user's file at it cannot block a batch (0);
// a killed batch's lock by name cleared with its lock by inode by a resume through a hard link (+4).
// The twenty-fifth pass's lead: a stderr that cannot be written is listened to, not thrown from the event loop (audit25: a batch died
// with no failed file, its sent rows recorded nowhere; +4). pace25a: a jittery path's first burst, told from a queue's by how its
// answers came back, gives the base its mean, not its fastest answer (+18).
// fix25a: --journal's read of the input a piece at a time, with a line on a terminal and a signal heard as a stop before any row (+36).
// fix25a: --after-line past its file's end refused, exit 2 (+8). --dry-run counts what its --resume would send (+5). batch --json: a pushed-back row not sent again says its answers, a dry run's row every field (+4).
// The lead: a rest run on a copy damaged again before its --after-line is said so, not "has changed" (review24b F2's words, +7).
// pace25b: F1's base after a path's step back, proved by one refusal asked for at once (a strict limit refuses at the path's round
// trip; another's queue behind it, faster: review19 R2, review17 B), not by the trial's cost per request (+38).
// fix25c: a proxy that closes on CONNECT fails the attempt once, named, not reconnected to until --timeout; a time-out before the
// tunnel and a non-HTTP answer to CONNECT named as the proxy's (audit25 F2, +2); status lists a proxy every command refuses (F7, +1);
// --verbose names the proxy used, its password masked (F10, +3); a Location in raw UTF-8 read as UTF-8, not latin1 (F13, +3).
// The lead: F1's proof not refused within four round trips (a limit_req burst let it in) proves nothing and undoes the base (review25, +4).
// fix25d: a catalog id completed quoted for its shell, and bash reading the word typed without eval (audit25 #3, +17).
// fix25d: a catalog id completed quoted for its shell, and bash reading the word typed without eval (audit25 #3, +17); a long profile
// name echoed cut (audit25 #5, +1); an empty --profile or TRIGGER_PROFILE refused, not read as default (audit25 #9, +3);
// the emulator's ids shown as fire shows them, --trigger '' refused, --log naming a folder told so (audit25 #12, #14; +3);
// a pasted key unwrapped (TRIGGER_API_KEY=, Bearer, quotes), a base URL with port 0, a bad % or a host too long refused (audit25 #11, +4).
// perf25: five comments trail their line (-5); a CSV slice's lines read from an index, not an object a line (+4).
// The lead: a dry run takes the lock of a journal it reads, refused beside the batch that holds it (review25, +2).
// The lead: a small input file is hashed for --journal at once, not through a stream each (a folder of 5,000 parts 6x slower; review25, +6).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// size26 took 72 out of settings, the emulator, lock, redact and the small commands: one tryOr helper for eight try/catch blocks (-24),
// arrow helpers (-12), comments trailing or said by the name (-10), long arguments named and smaller code (-26).
// fix26a: one listener for stop signals from the locks to the end (a signal while the journal was opened killed the batch
// without a word: review25 A3, +11). batch --json: an NDJSON row invalid for one member says the ids read; a failed file in
// columns keeps it as read, not sent without its value by a replay (+8). A dry run writes no failed file (+0). A user's own
// NDJSON error member is data, as a CSV's column: read as trigger's only when the first says "line N: " (+2).
// Off a terminal, the read for --journal says so in one plain line once it has taken 2 s (a minute silent in CI; +7).
// fix26b: a time-out after an answer's status line, before its headers ended, says the answer began, not "no response" (+6).
// fix26b: --verbose says "(cut short)" where the error does, and "no whole answer" for a time-out after an answer began (+4).
// fix26b: a catalog's "ids" profile key echoed cut and escaped, as a long --profile is, not whole (fix25d's note, +2).
// fix26b: every other piece of a catalog echoed in its problems (keys, fields, ids, a string where an object goes), and a typed
// trigger id not in it, cut the same way (+3).
// fix26b: bash completes an id with a backslash before each ASCII mark, not printf %q, whose $'\303\251' in the C locale readline
// cut inside an escape when two ids differed past ASCII (+3).
// fix26b: bash is offered an id with an invisible character (U+FE0F, U+200B) as $'...' with that character as its bytes, where it
// was never offered (+6).
// flake26: the progress line and fire's spinner one row, room for ^C's echo, cut by parts then words, the stop kept whole (audit25 #8, +12).
// The lead: every printed command (replay, --resume, rest) carries --profile, --base-url, --allow-http, --catalog/--no-catalog, and
// --api-key as "$TRIGGER_API_KEY" (audit26b: a paste sent the rest to the default profile's service, +20).
// fix26c (audit26): an empty --api-key, --base-url or their variables refused, not the profile's (+7); config get/list escaped, an
// invalid active profile refused, an empty HOME an unset one (+11); a config file that is a FIFO, a device or over 1 MiB refused
// unread (+11); --failed naming the file behind stdout or stderr refused (+6); a failed row's request id in its reason (+4).
// pace26: F1's step matched against its slow run's least window and held through a loaded client's stalls (review25 R2, +3).
// The lead: the start-up cache under an empty HOME or a relative XDG_CACHE_HOME not in the current folder (fix26c noticed, +1).
// The lead: an empty key or base URL is as unset where it is not needed (a dry run; review26: a fork's pull request, +1).
// The lead: bash puts no common start of two $'...' ids on the line, which left the quote open, cut inside an escape (review26, +6).
// fix26d: a 2xx whose JSON object does not parse (cut at 1 MiB, or mangled) is a malformed answer, outcome unknown, not accepted
// (audit26 #2, +7).
// fix26d: the 404 hint echoes a long trigger id and the path asked for cut, as other input is; fire's "add it" hint names an id
// over 64 characters rather than printing it whole again (audit26 #6, +3).
// fix26d: a refused handshake's hint by its code (expired, not yet valid, TLS 1.0/1.1, a missing intermediate), not always the
// private-CA one (audit26 #9, +10); a TLS alert for an answer to plain http is recorded "no" and says to use https://, as nginx's
// and Go's 400 for it do (audit26 #10, +8).
// fix26d: Retry-After sent twice is read as the longest wait, not the first; one over a day is read as a day and said "a day or
// more", not "99999999999999980000 s" (audit26 #12, +8).
// fix26d: a status the table does not name takes node:http's reason phrase (425 Too Early), and fire refuses --value given
// twice, where the last silently won (audit26 #14, +5).
// size26b took 56 out without a change in behaviour: tryOr for 19 more try/catch blocks (-53), one statOf in input.ts (-3).
// fix26e: a row of unknown outcome keeps its cause (a 500 and its request id) in the journal, so a resumed run's failed file
// does not call it "in flight when an earlier run ended" (audit26b #3, +5).
// fix26e: a batch stopped by a Retry-After of a day or more says so, as fire does, not "86400 s" (fix26d noticed, +4).
// fix26e: batch --format lines --trigger "" says --trigger is empty, not that it needs --trigger (fix26d noticed, +1).
// fix26e: a 304 says it is no redirect and the event was not recorded, not "redirected (304) to no Location" (audit26 #14, +4).
// fix26e: the off-terminal line of a slow read for --journal says a dry run sends nothing, not that sending starts (review26 F6, +2).
// The lead, on review26b: printed commands carry --profile default when the file has it, the env key beside a --base-url flag,
// --allow-http and TRIGGER_CATALOG; a TLS alert only at the answer's first bytes; a relative HOME or none at all not the current folder.
// pace26's F1 rules taken out again (-3): real nginx 1.22, req-100-grown, one machine: 25% and 63% of the limit against 68%/68% (6b80cdd).
// size27 took 153 out without a change in behaviour: tables as data or a few entries a line (status words, connect codes, errno; -44),
// index.ts and three long imports as values then types (-45), internal types' doc comments trailing their fields or refilled (-37),
// smaller code (tryOr, one lookup, one row literal; -27).
// fix27a: a journal records the base URL, the profile and a salted print of the key, and refuses a run that would carry it on
// elsewhere or under another key (review26b F2, +27); a summary that prints a command reading "$TRIGGER_API_KEY" says so when that
// variable is not the key the batch was given with --api-key (review26b F2, +8); Settings say whether the file has the profile, so
// a batch reads the config file once (note26, -1); the journal's refusal names where the base URL came from, not the profile (+3).
// fix27b: a file name with a control or invisible character shown escaped in the summary and quoted as $'...' in a printed
// command, so that it stays one line and names that file (audit26b #5, +4).
// fix27b: an empty TRIGGER_PROFILE is as unset in a dry run, as an empty key is (review26b F10, +2).
// fix27b: a row without a triggerId, or a header without the column, says --trigger was given empty when it was (fix26e noticed, +2).
// fix27b: a failed attempt keeps the headers of an answer that began, so a corrupt gzip 2xx has its request id (fix26e noticed, +3).
// fix27b: a malformed 2xx's error keeps its status, so fire --json says 200, not null (fix26e noticed, +2).
// fix27b: a relative TRIGGER_CONFIG_DIR refused, not taken from the current folder (audit26 #8, +8).
// fix27b: a stored apiKey or baseUrl that is no text (a hand-edited "apiKey": 12345) refused naming the file (fix26c noticed, +4).
// The lead (twenty-seventh): the inode locks' folder follows the XDG rule as the config and start-up cache do, one xdgDir (+2).
// fix27b: the progress line and spinner cut by terminal columns, a CJK character two, a combining mark none (review26 #5, +5).
// fix27b: http:// to [::ffff:127.0.0.1] or localhost. is loopback, localhost. sent to as localhost (audit26 #14, +2).
// fix27b: a Parquet DOUBLE or FLOAT -0 sent as -0, as a CSV's is, not 0 (audit26 #14, +1).
// fix27c (audit27): a file read to its size when listed, each piece checked to be that file still, so one cut, grown or rewritten while
// read stops as damage (+27); a part gone after the listing and a changed file said so in the summary (+5); the failed file's folder
// removed midway made again from the open file (+19); a header again after a BOM (+2); a .gz member failing its checksum named (+10).
// review27 (the lead): a dry run passes over a stored key that is not text, null and lists named so; loadCatalog's env keeps its doc (+2); a key changed where it came from says so (+1); a dry run exits 1 with ⚠ for rows an earlier run left, as the run does (F3, +3).
// fix27d: an earlier run's journal read a MiB at a time, its records as bytes, and a stop signal heard during the read (audit27 #2, +40).
// fix27d: a --journal that is a device, FIFO or socket refused before its lock is taken, and again as it is opened (audit27 #6, +9).
// fix27d: a Parquet file whose row counts do not add up, or whose pages give fewer values than their rows, is damage; hyparquet's
// internal errors said as a damaged footer or page (audit27 #3, #11, +24).
// review27b (the lead): a file written on at its end sends the rows it had when listed; one that says it is empty is read as it comes;
// a damage stop's journal carries on only by its rest command (+13); the failed file and the journal made again from
// their open files when their folder is removed, never through a link, the folder 0700 (+17).
// size27b took 60 out without a change in behaviour: internal types' doc comments trailing their fields (runner, recorder, store; -16),
// one-expression functions as arrow constants (-16), client.ts's result and request as literals a line (-19), applyFields as one
// object (-3), smaller code in keychain, excerpt and request (-6).
// The lead: start-up finds the config folder without errors.ts (configFolder; fix27b's refusal had put it in startup.cjs, +1.8 KB,
// fire's CPU 2.61-2.67x node -e 0 against the 2.6x target) (+11).
// fix28a: a file behind standard input read as a named file is, from its offset (review27b F3, +4); a folder's device, FIFO or
// socket entry refused (audit27 #12, +2); "or leave X= out" only where that run works (audit27 #10, +3).
// size28 took 163 out without a change in behaviour: comments said in one line or a line shorter (-123), comments trailing the
// line or field they are about (-23), printable and colours as arrow constants, two small interfaces as one-line types, a
// prettier-ignore table and smaller code in fire, lock and load (-17).
// size28b took 53 out without a change in behaviour: comments said in fewer lines, one-line ones trailing their fields (runner, report,
// journal, attempt, input, undici, keychain, eight // comments; -35), refuseToCarryOn's hint branch for a rest command, dead since
// review27b F1 refuses such a journal first (-3), smaller code in client (serviceError's context), files, failed, input and shard (-15).
// fix28c: every key the run holds masked from main()'s first line, an excerpt's cut in pieces, longer keys first (audit28 #1,
// +6); the client's request id and onEvent's response masked (audit28 #6, +11); config.json's V8 excerpt and a file nested too
// deeply to write back (audit28 #17, +14).
// fix28d: the library's client knows a prepared event by a brand, not by a `path` member an analytics row may have (audit28 #4, +4).
// fix28d: a BaseUrl object not from resolveSettings checked as its text is: parsed, the plain-http rule (audit28 #5, -2).
// fix28d: loadSettings typed with its key (its overloads), and a client given no key names loadSettings (audit28 #2, +3).
// fix28d: connections and traceparent checked, an interrupt keeps its signal's reason as cause (audit28 #8, #9, #12, +5).
// fix28d: one abort listener a signal a client, for its attempts as for its retry waits (audit28 #7, +4).
// fix28e: "did you mean" bounded, editDistance in a module of its own so a test counts the distances asked for (audit28 #10, +26);
// a new catalog names no triggers.schema.json that is not the package's (audit28 #14, +5).
// The lead, twenty-eighth pass: 'damaged at its start', defaultFailedName's race refused, openWritten's warn gone (-5); the key's
// sed naming the journal's real path, refuseElsewhere of its own (+3); a removed current folder refused where it is read (+4); a
// folder entry's kind named (+1); stdin a folder or write-only (+6); review28b: short keys unmasked, em-dash flags, BaseUrl frozen (+6).
const BUDGET = 12_074;
const GOAL = 11_600;

function lines(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += lines(path);
    else if (entry.name.endsWith('.ts')) total += readFileSync(path, 'utf8').split('\n').length - 1;
  }
  return total;
}

const count = lines(new URL('../src', import.meta.url).pathname);
if (count > BUDGET) {
  console.error(`error: src/ is ${count} lines, over its budget of ${BUDGET}: make it smaller (scripts/check-size.mjs)`);
  process.exit(1);
}
console.log(`src/ is ${count} lines (budget ${BUDGET}, goal ${GOAL})`);
