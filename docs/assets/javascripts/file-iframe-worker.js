/* Search for the site opened from disk (file://), where browsers refuse to start a Web Worker. Material's search
   runs its index in a worker; here, on file:// only, `Worker` runs the worker's script in a hidden iframe of the
   page instead, and messages pass between the two as events. Nothing is loaded from another host. (Named
   "...iframe-worker..." so that Material's offline plugin takes it in place of the copy it would load from unpkg.) */
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.waiting = [];
      this.frame = document.createElement("iframe");
      this.frame.hidden = true;
      document.body.appendChild(this.frame);
      this.scope = this.frame.contentWindow;
      // What the worker's script calls: postMessage answers the page, importScripts cannot load from disk.
      this.scope.postMessage = (data) => {
        const event = new MessageEvent("message", { data: data });
        this.dispatchEvent(event);
        if (typeof this.onmessage === "function") {
          this.onmessage(event);
        }
      };
      this.scope.importScripts = () => {
        throw new Error("importScripts is not available to a worker started from disk");
      };
      const script = this.scope.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        const waiting = this.waiting;
        this.waiting = null;
        waiting.forEach((data) => this.deliver(data));
      };
      this.scope.document.body.appendChild(script);
    }

    deliver(data) {
      this.scope.dispatchEvent(new this.scope.MessageEvent("message", { data: data }));
    }

    postMessage(data) {
      if (this.waiting !== null) {
        this.waiting.push(data);
      } else {
        this.deliver(data);
      }
    }

    terminate() {
      this.frame.remove();
    }
  }

  window.Worker = FileWorker;
})();
