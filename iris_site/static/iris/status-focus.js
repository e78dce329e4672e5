/* After an action the page reloads with a status message: move focus to it so keyboard and
   screen-reader users land on what changed. Served from 'self' (no inline script under the
   CSP); without JavaScript the message is still first in <main> and announced (role=status). */
(function () {
  "use strict";
  function focusStatus() {
    var region = document.getElementById("status-messages");
    if (region) {
      region.focus();
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", focusStatus);
  } else {
    focusStatus();
  }
})();
