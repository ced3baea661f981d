// shipd settings: the only script of the UI. It asks before destructive
// forms are sent (data-confirm) and copies shown-once secrets (data-copy).
// Every page works without it: forms post, secrets can be selected by hand.
"use strict";

document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!button) {
    return;
  }
  const source = document.getElementById(button.dataset.copy);
  const status = button.parentElement.querySelector(".copied");
  if (!source) {
    return;
  }
  const text = source.textContent.trim();
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    // The clipboard API needs a secure context (https or localhost):
    // select the text and use the older command instead.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    copied = document.execCommand("copy");
  }
  if (status) {
    status.textContent = copied ? "Copied." : "Select the text and copy it.";
  }
});
