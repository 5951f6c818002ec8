import { Text } from "ink";
import { describe, expect, it } from "vitest";
import type { KeyEvent } from "../../src/ui/input/keys";
import { useRawInput } from "../../src/ui/hooks/use-raw-input";
import { renderToFakeTerminal } from "./ink-harness";

// North reads raw input through Ink's private input stream (src/ui/hooks/ink-input-stream.ts):
// an Ink upgrade that renames or drops it must fail here, not leave the chat deaf.
describe("Ink's input stream", () => {
    it("carries every string typed, in order, bracketed pastes included", async () => {
        const events: KeyEvent[] = [];
        let received: () => void = () => undefined;
        const pasteEnded = new Promise<void>((resolve) => (received = resolve));
        function Listener() {
            useRawInput((event) => {
                events.push(event);
                if (event.type === "paste-end") received();
            });
            return <Text>listening</Text>;
        }
        const terminal = renderToFakeTerminal(<Listener />);
        try {
            await terminal.type("ab");
            await terminal.type("\x1b[200~pasted\x1b[201~");
            await pasteEnded;
            expect(events).toEqual([
                { type: "text", text: "ab" },
                { type: "paste-start" },
                { type: "text", text: "pasted" },
                { type: "paste-end" },
            ]);
        } finally {
            terminal.instance.unmount();
        }
    });
});
