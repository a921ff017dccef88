# Journal append + fdatasync against one SQLite WAL transaction, and FTS5 against a scan, on this machine.
# Run in an empty scratch directory: python3 journal-vs-sqlite.py (Docs/DESIGN.md quotes its output).
import os, sqlite3, time, random
N=2000
# journal append + fdatasync
fd=os.open("j.bin", os.O_WRONLY|os.O_CREAT|os.O_APPEND, 0o600)
rec=os.urandom(200)
t=time.perf_counter()
for i in range(N):
    os.write(fd, rec); os.fdatasync(fd)
tj=(time.perf_counter()-t)/N
db=sqlite3.connect("s.db", isolation_level=None)
db.execute("pragma journal_mode=wal"); db.execute("pragma synchronous=full")
db.execute("create table m(id integer primary key, conv text, ord integer, body blob, text text)")
db.execute("create index mo on m(conv, ord)")
db.execute("create virtual table f using fts5(text, content='m', content_rowid='id', tokenize='unicode61 remove_diacritics 2')")
db.execute("create trigger ai after insert on m begin insert into f(rowid, text) values (new.id, new.text); end")
t=time.perf_counter()
for i in range(N):
    db.execute("begin"); db.execute("insert into m(conv,ord,body,text) values ('c',?,?,?)",(i,rec,"hello world message %d"%i)); db.execute("commit")
ts=(time.perf_counter()-t)/N
print("journal append+fdatasync us", tj*1e6, "sqlite commit us", ts*1e6)
# bulk 100k then search vs scan
words=["alpha","beta","gamma","delta","café","naïve","zebra","quantum","river","stone"]
rows=[("c%d"%(i%50), i, rec, " ".join(random.choice(words) for _ in range(12))+(" needle" if i%1000==0 else "")) for i in range(100000)]
db.execute("begin"); db.executemany("insert into m(conv,ord,body,text) values (?,?,?,?)", rows); db.execute("commit")
t=time.perf_counter()
for _ in range(20): r=db.execute("select m.id from f join m on m.id=f.rowid where f match '\"needle\"' order by m.id desc").fetchall()
tf=(time.perf_counter()-t)/20
texts=[r[3] for r in rows]
t=time.perf_counter()
for _ in range(5): s=[i for i,x in enumerate(texts) if "needle" in x.casefold()]
tsc=(time.perf_counter()-t)/5
print("fts ms", tf*1e3, len(r), "scan ms", tsc*1e3, len(s))
t=time.perf_counter()
for _ in range(200): db.execute("select body from m where conv='c7' order by ord desc limit 50").fetchall()
print("newest page ms", (time.perf_counter()-t)/200*1e3)
