import { useEffect, useState } from "react";
import type { PendingReview } from "../review-types";

export interface PendingReviewSource {
    subscribe(listener: (pending: PendingReview | null) => void): () => void;
}

/** The review waiting for the user now (one at a time), or null. */
export function usePendingReview(bridge: PendingReviewSource): PendingReview | null {
    const [pending, setPending] = useState<PendingReview | null>(null);
    useEffect(() => bridge.subscribe(setPending), [bridge]);
    return pending;
}
