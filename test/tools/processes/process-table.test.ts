/**
 * Background processes through North's own shell service (issue 35, parts 1,
 * 2 and 5): reads, waits, watches and notices, input, the limit, stops.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ProcessError } from "../../../src/tools/processes/types";
import { disposeKits, makeKit, until } from "./kit";

afterEach(disposeKits);

const origin = "call-1";

describe("a background command", () => {
    it("returns after its first output with an id; reads give new output, the tail and matching lines", async () => {
        const { shell, repo } = await makeKit();
        const started = await shell.start(
            "echo first; while [ ! -f go ]; do sleep 0.02; done; printf 'a1\\nb2\\na3\\n'; sleep 100",
            { origin }
        );
        expect(started.process).toMatchObject({ id: "p1", state: "running", origin, tty: false });
        expect(started.output).toBe("first");
        const table = shell.processes;
        // Nothing new since the start returned "first".
        expect(table.read("p1", { mode: "new" }).text).toBe("");
        await repo.write("go", "");
        await table.wait(
            "p1",
            { until: { pattern: "a3" }, timeoutMs: 20_000 },
            new AbortController().signal
        );
        expect(table.read("p1", { mode: "tail", lines: 2 }).text).toBe("b2\na3");
        expect(table.read("p1", { mode: "grep", pattern: "^a" }).text).toBe("a1\na3");
        // A viewer's cursor is its own: the model's reads are untouched by it.
        expect(table.read("p1", { mode: "new", reader: "view" }).text).toBe("first\na1\nb2\na3");
        expect(table.read("p1", { mode: "new" }).text).toBe("");
    });

    it("waits for exit, for a pattern (also one already printed but unread), and times out", async () => {
        const { shell, repo } = await makeKit();
        const signal = new AbortController().signal;
        await shell.start("echo ready; while [ ! -f go ]; do sleep 0.02; done; echo done; exit 3", {
            origin,
        });
        const table = shell.processes;
        const timedOut = await table.wait(
            "p1",
            { until: { pattern: "never" }, timeoutMs: 200 },
            signal
        );
        expect(timedOut.outcome).toBe("timeout");
        expect(timedOut.process.state).toBe("running");
        await repo.write("go", "");
        const exited = await table.wait("p1", { until: "exit", timeoutMs: 20_000 }, signal);
        expect(exited.outcome).toBe("exited");
        expect(exited.process.exitCode).toBe(3);
        expect(exited.text).toBe("done");
        // The wait reported the exit: no notice repeats it.
        expect(table.takeNotices()).toEqual([]);

        // A line printed after the start returned, before the wait: unread, so it counts.
        await shell.start(
            "echo booting; while [ ! -f go2 ]; do sleep 0.02; done; echo listening on 3000; sleep 100",
            {
                origin,
            }
        );
        await repo.write("go2", "");
        await until(() =>
            expect(table.read("p2", { mode: "tail", reader: "view" }).text).toContain("listening")
        );
        const matched = await table.wait(
            "p2",
            { until: { pattern: "listening on \\d+" }, timeoutMs: 20_000 },
            signal
        );
        expect(matched).toMatchObject({ outcome: "matched", matchedLine: "listening on 3000" });
        // Read now: the same line does not match again.
        const again = await table.wait(
            "p2",
            { until: { pattern: "listening" }, timeoutMs: 200 },
            signal
        );
        expect(again.outcome).toBe("timeout");
    });

    it("tells the model when it exits on its own and when a watched line appears, once per burst", async () => {
        const { shell, repo } = await makeKit();
        const table = shell.processes;
        const events: string[] = [];
        table.subscribe((event) => events.push(event.type));
        await shell.start(
            "echo boot; while [ ! -f go ]; do sleep 0.02; done; echo ERROR one; echo ERROR two; echo bye; exit 1",
            { origin, watch: "ERROR" }
        );
        await repo.write("go", "");
        await until(() => expect(table.get("p1")?.state).toBe("exited"));
        const notices = table.takeNotices();
        expect(notices.map((n) => n.kind)).toEqual(["matched", "exited"]);
        expect(notices[0]).toMatchObject({ pattern: "ERROR", lines: ["ERROR one"] });
        expect(notices[1]!.process.exitCode).toBe(1);
        expect(notices[1]!.lines.slice(-2)).toEqual(["ERROR two", "bye"]);
        expect(table.pendingNotices()).toBe(0);
        expect(events).toEqual(["started", "notice", "exited", "notice"]);
    });

    it("reports a dev server whose port is taken: the error is in its first output and its exit notice", async () => {
        const { shell } = await makeKit();
        const server =
            "node -e \"const s=require('http').createServer();s.on('error',e=>{console.error('server error: '+e.code);process.exit(1)});s.listen(+process.argv[1]||0,'127.0.0.1',()=>console.log('listening on '+s.address().port))\"";
        const first = await shell.start(`${server} 0`, { origin });
        let port = /listening on (\d+)/.exec(first.output)?.[1];
        if (port === undefined) {
            // A slow start: the first second passed before the line.
            const ready = await shell.processes.wait(
                "p1",
                { until: { pattern: "listening on" }, timeoutMs: 20_000 },
                new AbortController().signal
            );
            port = /listening on (\d+)/.exec(ready.matchedLine ?? "")?.[1];
        }
        expect(port).toBeDefined();
        const second = await shell.start(`${server} ${port}`, { origin });
        const { id } = second.process;
        if (second.process.state === "exited") {
            // It failed within its first second: the start's result says so, and no notice repeats it.
            expect(second.process.exitCode).toBe(1);
            expect(second.output).toContain("EADDRINUSE");
            expect(shell.processes.takeNotices()).toEqual([]);
            return;
        }
        await until(() => expect(shell.processes.get(id)?.state).toBe("exited"));
        const notice = shell.processes.takeNotices().find((n) => n.process.id === id);
        expect(notice?.process.exitCode).toBe(1);
        expect(notice?.lines.join("\n")).toContain("EADDRINUSE");
    });

    it("refuses input to a process that exited, saying so", async () => {
        const { shell } = await makeKit();
        await shell.start("echo bye", { origin });
        await until(() => expect(shell.processes.get("p1")?.state).toBe("exited"));
        const sent = shell.processes.send("p1", { text: "hello\n" });
        await expect(sent).rejects.toBeInstanceOf(ProcessError);
        await expect(sent).rejects.toMatchObject({ code: "exited" });
        await expect(sent).rejects.toThrow(
            /p1 \(`echo bye`\) has exited with code 0; nothing was sent/
        );
        await expect(shell.processes.send("p9", { text: "x" })).rejects.toMatchObject({
            code: "not_found",
        });
    });

    it("takes a line, keys and end of input on stdin and returns after the program answered", async () => {
        const { shell } = await makeKit();
        await shell.start('while read line; do echo "got $line"; done; echo eof', { origin });
        const table = shell.processes;
        await table.send("p1", { text: "one\n" });
        await until(() => expect(table.read("p1", { mode: "tail" }).text).toContain("got one"));
        await table.send("p1", { text: "two", keys: ["enter"], eof: true });
        const end = await table.wait(
            "p1",
            { until: "exit", timeoutMs: 20_000 },
            new AbortController().signal
        );
        expect(end.text).toContain("got two");
        expect(end.text).toContain("eof");
        await expect(
            shell
                .start("sleep 100", { origin })
                .then(() => table.send("p2", { keys: ["no-such-key"] }))
        ).rejects.toThrow(/unknown key "no-such-key"; known keys: ctrl\+c/);
    });

    it("refuses the 9th of 20 starts, naming the 8 running ones", async () => {
        const { shell } = await makeKit();
        const results = await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) => shell.start(`sleep 100 # ${i}`, { origin }))
        );
        const started = results.filter((r) => r.status === "fulfilled");
        const refused = results.flatMap((r) =>
            r.status === "rejected" ? [r.reason as ProcessError] : []
        );
        expect(started).toHaveLength(8);
        expect(refused).toHaveLength(12);
        expect(shell.processes.running()).toBe(8);
        for (const error of refused) {
            expect(error.code).toBe("limit");
            for (const info of shell.processes.list())
                expect(error.message).toContain(`${info.id} \``);
            expect(error.message).toContain("process_stop");
        }
        await shell.processes.stop("p1");
        await expect(shell.start("sleep 100 # again", { origin })).resolves.toBeDefined();
    });

    it("forgets the oldest finished processes first", async () => {
        const { shell } = await makeKit({ processLimits: { keepFinished: 2 } });
        for (let i = 1; i <= 4; i++) {
            await shell.start(`echo ${i}`, { origin });
            await until(() => expect(shell.processes.get(`p${i}`)?.state).toBe("exited"));
        }
        expect(shell.processes.list().map((p) => p.id)).toEqual(["p4", "p3"]);
    });

    it("refuses a bad watch pattern before anything runs", async () => {
        const { shell } = await makeKit();
        await expect(shell.start("echo x", { origin, watch: "(" })).rejects.toMatchObject({
            code: "invalid",
        });
        expect(shell.processes.list()).toEqual([]);
    });

    it("matches the model's patterns in linear time: one that would backtrack for ages does not freeze North", async () => {
        const { shell, repo } = await makeKit();
        const long = "a".repeat(5000);
        // `(a+)+$` on a long run of a's and a b backtracks exponentially in a backtracking engine.
        await shell.start(
            `echo started; while [ ! -f go ]; do sleep 0.02; done; printf '${long}b\\n'; printf 'ready\\n'; sleep 100`,
            { origin, watch: "^(a+)+$|^ready$" }
        );
        await repo.write("go", "");
        // The long line is tried and fails at once; the watch fires for the next one.
        await until(() => expect(shell.processes.pendingNotices()).toBe(1));
        await until(() =>
            expect(
                shell.processes.read("p1", { mode: "grep", pattern: "(x+x+)+y|ready" }).text
            ).toBe("ready")
        );
        // What only a backtracking engine can run is refused, saying why.
        await expect(shell.start("echo x", { origin, watch: "(a)\\1" })).rejects.toThrow(
            /backtracking/
        );
    });
});
