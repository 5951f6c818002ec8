import { describe, expect, it } from "vitest";
import type { HostListener } from "../../src/agent/protocol";
import { notifyUser } from "../../src/ui/notify-user";
import type { PendingReview } from "../../src/ui/review-types";
import type { Notifier } from "../../src/ui/terminal/notify";

function harness() {
    const calls: string[] = [];
    const notifier: Notifier = {
        focus: () => undefined,
        runStarted: () => calls.push("start"),
        runEnded: (tell) => calls.push(`end ${tell ?? true}`),
        reviewWaiting: (what) => calls.push(`review ${what}`),
    };
    let hostListener: HostListener = () => undefined;
    let reviewListener: (pending: PendingReview | null) => void = () => undefined;
    const off = notifyUser(
        notifier,
        {
            subscribe: (listener) => {
                hostListener = listener;
                return () => undefined;
            },
        },
        {
            subscribe: (listener) => {
                reviewListener = listener;
                listener(null);
                return () => undefined;
            },
        }
    );
    return { calls, off, host: (e: unknown) => hostListener(e as never), review: reviewListener };
}

const review = (kind: PendingReview["kind"], id: string) => ({ kind, id }) as PendingReview;

describe("what the chat notifies about", () => {
    it("an answer's start and end (a cancelled one says nothing), each waiting review once, not the user's own pickers", () => {
        const h = harness();
        h.host({ type: "run_start" });
        h.host({ type: "run_end", result: { subtype: "cancelled" } });
        h.host({ type: "run_start" });
        h.host({ type: "run_end", result: { subtype: "success" } });
        h.review(review("shell", "r1"));
        h.review(review("shell", "r1"));
        h.review(null);
        h.review(review("picker", "p1"));
        h.review(review("secret", "s1"));
        expect(h.calls).toEqual([
            "start",
            "end false",
            "start",
            "end true",
            "review a command",
            "review a password prompt",
        ]);
    });
});
