// Objects that own emitters, watchers or workers register them here and release them together.
import * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean { return this.disposed; }

  protected _register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) d.dispose(); else this.owned.push(d);
    return d;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.owned.splice(0).reverse()) {
      try { d.dispose(); } catch { /* keep releasing the rest */ }
    }
  }
}
