// The walkthrough's "Show Request Timeline" button: the timeline of the request traced last,
// with the logs that hold it, at once. The palette's Show Request Timeline… asks for an id in an
// input box first, and a walkthrough button cannot open one: the walkthrough page takes the
// keyboard focus back as its button is clicked, which closes the box.
export interface TimelineStepDeps {
  /** The request traced last (Send Traced Request), if any: its id as the log prints it. */
  lastTraced(): { logRequestId: string } | undefined;
  /** Runs Show Request Timeline for a request id (the timeline feature finds its logs). */
  showTimeline(requestId: string): Promise<unknown>;
  /** Tells the user why no timeline opened. */
  inform(message: string): void;
}

/** Shows the last traced request's timeline; resolves to the request id shown, or undefined (the user was told). */
export async function showLastTracedTimeline(deps: TimelineStepDeps): Promise<string | undefined> {
  const rid = deps.lastTraced()?.logRequestId;
  if (!rid) {
    deps.inform('HopLens: send a traced request first (the walkthrough\'s step before this one), or run HopLens: Show Request Timeline… '
      + 'from the palette for any request id of an open log.');
    return undefined;
  }
  await deps.showTimeline(rid);
  return rid;
}
